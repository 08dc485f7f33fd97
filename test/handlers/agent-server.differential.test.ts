// Differential suite: the upstream JS dev server (@langchain/langgraph-cli, pinned) and
// agentplane serve the same project (test/fixtures/differential-project); every scenario is
// sent to both and what the client saw is compared after normalising ids and timestamps.
// A difference fails the test unless deliberate-differences.json allows it (with its reason).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ListedUse, differences, describe as describeDifferences, describeUnmet, normalise, readDeliberate } from '../differential/compare.ts';
import { side, startServers, type RunningServer, type Servers } from '../differential/harness.ts';
import { scenarios } from '../differential/scenarios.ts';
import { useStreamScenarios } from '../differential/useStreamScenarios.ts';
import { authScenarios } from '../differential/authScenarios.ts';
import { addressScenarios } from '../differential/addressScenarios.ts';
import { protocolV2Scenarios } from '../differential/protocolV2Scenarios.ts';
import { runFidelityScenarios } from '../differential/runFidelityScenarios.ts';
import { corpusScenarios } from '../differential/corpusScenarios.ts';
import { pythonSdkScenarios } from '../differential/pythonSdkScenarios.ts';

const deliberate = readDeliberate();
const listed = new ListedUse(deliberate);
const all = [
  ...scenarios,
  ...useStreamScenarios,
  ...authScenarios,
  ...addressScenarios,
  ...protocolV2Scenarios,
  ...runFidelityScenarios,
  ...pythonSdkScenarios,
];

describe('differential: upstream JS dev server vs agentplane on the same project', { timeout: 600_000 }, () => {
  let servers: Servers;
  const suiteStarted = performance.now();
  before(async () => {
    servers = await startServers((line) => console.log(`# ${line}`));
    console.log(
      `# servers started (upstream ${(servers.startMs.upstream / 1000).toFixed(1)} s, agentplane ${(servers.startMs.agentplane / 1000).toFixed(1)} s)`,
    );
    // both servers read a graph's TypeScript for its schemas (seconds to tens of seconds, in a
    // worker, kept per graph): started now, it is done when the schema scenarios ask
    for (const server of [servers.upstream, servers.agentplane])
      void side(server)
        .client()
        .assistants.getSchemas('parent')
        .then(() => side(server).client().assistants.getSchemas('configured'))
        .catch(() => {});
  });
  after(async () => {
    await Promise.all([servers?.upstream.stop(), servers?.agentplane.stop()]);
    console.log(`# differential suite: ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s in all`);
  });

  it('every listed difference names a scenario that exists', () => {
    // the corpus's scenarios run in agent-server.corpus.differential.test.ts, against the corpus project
    const names = new Set([...all, ...corpusScenarios].map((s) => s.name));
    for (const d of deliberate) if (d.scenario !== '*') assert.ok(names.has(d.scenario), `deliberate-differences.json names unknown scenario "${d.scenario}"`);
  });

  for (const scenario of all) {
    it(scenario.name, { timeout: 120_000 }, async () => {
      const on = (server: RunningServer) =>
        scenario.run(side(server)).catch((err: Error) => {
          throw new Error(`${scenario.name} failed on ${server.name}: ${err.message}\n${server.name}'s last output:\n${server.output().slice(-2500)}`, {
            cause: err,
          });
        });
      const [upstream, agentplane] = scenario.oneAtATime
        ? [await on(servers.upstream), await on(servers.agentplane)]
        : await Promise.all([on(servers.upstream), on(servers.agentplane)]);
      const found = differences(normalise(upstream, servers.upstream.url), normalise(agentplane, servers.agentplane.url));
      const left = listed.unexplained(scenario.name, found);
      assert.ok(left.length === 0, `${scenario.name} (${scenario.covers}) differs from the upstream server:\n${describeDifferences(left)}`);
    });
  }

  // last: the list says what differs, no more (an entry no compared scenario met fails here)
  it('every listed difference of the scenarios compared here still occurs', () => {
    const unmet = listed.unmet();
    assert.ok(
      unmet.length === 0,
      `deliberate-differences.json lists differences these scenarios no longer show (remove or narrow them):\n${describeUnmet(unmet)}`,
    );
  });
});
