// The project-layout matrix (issue 90, item 0) on the upstream JS dev server and on agentplane:
// one project (test/support/projectLayouts.ts) whose graphs sit in packages with no "type",
// "module" and "commonjs", TypeScript and JavaScript, importing siblings as `.ts`, `.js` and
// extensionless, .mts and .cts, a tsconfig alias and a CommonJS dependency. Both servers must
// start on it (a graph that cannot load stops either), list the same graphs, and answer each
// graph's runs the same, compared normalised as the differential suite compares
// (deliberate-differences.json applies).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { differences, describe as describeDifferences, normalise, readDeliberate, unexplained } from '../differential/compare.ts';
import { collect, side, startServers, type RunningServer, type Servers, type Side } from '../differential/harness.ts';
import { layoutCells, writeLayoutProject, type LayoutCell } from '../support/projectLayouts.ts';
import { ROOT } from '../support/server.ts';

const deliberate = readDeliberate();
const cells = layoutCells();

/** What a client sees of one graph: its assistant, a stateless run, a streamed run on a thread and the thread it leaves. */
async function cellRuns(on: Side, cell: LayoutCell) {
  const client = on.client();
  const [assistant] = await client.assistants.search({ graphId: cell.id });
  const waited = await client.runs.wait(null, cell.id, { input: { n: 3 } });
  const thread = await client.threads.create();
  const streamed = await collect(client.runs.stream(thread.thread_id, cell.id, { input: { n: 5 }, streamMode: ['values', 'updates'] }));
  const state = await client.threads.getState(thread.thread_id);
  return {
    assistant: { graph_id: assistant?.graph_id, name: assistant?.name },
    waited,
    streamed: streamed.filter((part) => part.event !== 'metadata'),
    state: { values: state.values, next: state.next },
  };
}

describe('project layouts on the upstream JS dev server and on agentplane', { timeout: 600_000 }, () => {
  // inside the repository, so that agentplane's imports of LangGraph resolve to its copy
  const dir = path.join(ROOT, '.cache', `project-layouts-${randomUUID()}`);
  let servers: Servers;
  before(async () => {
    writeLayoutProject(dir, cells);
    servers = await startServers((line) => console.log(`# ${line}`), { dir, name: 'layouts', stage: (copy) => writeLayoutProject(copy, cells) });
    console.log(
      `# servers started (upstream ${(servers.startMs.upstream / 1000).toFixed(1)} s, agentplane ${(servers.startMs.agentplane / 1000).toFixed(1)} s)`,
    );
  });
  after(async () => {
    await Promise.all([servers?.upstream.stop(), servers?.agentplane.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('both list every graph of the project', async () => {
    const graphIds = async (server: RunningServer) =>
      (await side(server).client().assistants.search({ limit: 100 })).map((assistant) => assistant.graph_id).sort();
    const [upstream, agentplane] = await Promise.all([graphIds(servers.upstream), graphIds(servers.agentplane)]);
    assert.deepEqual(upstream, cells.map((cell) => cell.id).sort());
    assert.deepEqual(agentplane, upstream);
  });

  for (const cell of cells) {
    it(`${cell.id}: ${cell.graph} in a package with ${cell.packageType === 'none' ? 'no "type"' : `"type": "${cell.packageType}"`} importing '${cell.specifier}'`, async () => {
      const on = (server: RunningServer) =>
        cellRuns(side(server), cell).catch((err: Error) => {
          throw new Error(`${cell.id} failed on ${server.name}: ${err.message}\n${server.name}'s last output:\n${server.output().slice(-2500)}`, {
            cause: err,
          });
        });
      const [upstream, agentplane] = await Promise.all([on(servers.upstream), on(servers.agentplane)]);
      assert.deepEqual((agentplane as { waited: unknown }).waited, { n: 6 }, 'the graph ran');
      const found = differences(normalise(upstream, servers.upstream.url), normalise(agentplane, servers.agentplane.url));
      const left = unexplained(`layouts: ${cell.id}`, found, deliberate);
      assert.ok(left.length === 0, `${cell.id} differs from the upstream server:\n${describeDifferences(left)}`);
    });
  }
});
