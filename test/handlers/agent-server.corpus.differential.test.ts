// The differential corpus (issue 65, point 3): the upstream JS dev server and agentplane each
// serve test/fixtures/corpus-project, whose model clients (ChatOpenAI, ChatAnthropic,
// initChatModel, a deep agent's) reach the fake model server on loopback through the
// environment a user's .env would set; every corpus scenario is sent to both and compared
// normalised, as the differential suite does (deliberate-differences.json applies).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ListedUse, differences, describe as describeDifferences, describeUnmet, normalise, readDeliberate } from '../differential/compare.ts';
import { side, startServers, type RunningServer, type Servers } from '../differential/harness.ts';
import { corpusScenarios } from '../differential/corpusScenarios.ts';
import { startFakeModelServer, type FakeModelServer } from '../support/fakeModelServer.ts';
import { ROOT } from '../support/server.ts';

const deliberate = readDeliberate();
const listed = new ListedUse(deliberate);

describe('differential corpus: real project shapes on the upstream JS dev server and on agentplane', { timeout: 600_000 }, () => {
  let servers: Servers;
  let model: FakeModelServer;
  const started = performance.now();
  before(async () => {
    model = await startFakeModelServer();
    const env = {
      OPENAI_API_KEY: 'sk-fake-corpus',
      OPENAI_BASE_URL: `${model.url}/v1`,
      ANTHROPIC_API_KEY: 'sk-ant-fake-corpus',
      ANTHROPIC_BASE_URL: model.url,
    };
    servers = await startServers((line) => console.log(`# ${line}`), { dir: path.join(ROOT, 'test/fixtures/corpus-project'), name: 'corpus', env });
    console.log(
      `# servers started (upstream ${(servers.startMs.upstream / 1000).toFixed(1)} s, agentplane ${(servers.startMs.agentplane / 1000).toFixed(1)} s)`,
    );
  });
  after(async () => {
    await Promise.all([servers?.upstream.stop(), servers?.agentplane.stop()]);
    await model?.stop();
    console.log(`# differential corpus: ${((performance.now() - started) / 1000).toFixed(1)} s in all; model calls ${JSON.stringify(model?.calls)}`);
  });

  for (const scenario of corpusScenarios) {
    it(scenario.name, { timeout: 180_000 }, async () => {
      const on = (server: RunningServer) =>
        scenario.run(side(server)).catch((err: Error) => {
          throw new Error(`${scenario.name} failed on ${server.name}: ${err.message}\n${server.name}'s last output:\n${server.output().slice(-2500)}`, {
            cause: err,
          });
        });
      const [upstream, agentplane] = await Promise.all([on(servers.upstream), on(servers.agentplane)]);
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
