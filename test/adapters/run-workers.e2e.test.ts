// Graphs execute in worker threads by default; AGENTPLANE_RUN_WORKERS=0 runs them on the
// request loop (the debugging mode). Test servers run graphs on the request loop unless a
// test asks for workers (a worker loads LangGraph again: see test/support/server.ts). So that
// neither way drifts from the other, the run suite whose cases take every path of a run's
// execution — queueing in order, reject, interrupt and rollback of a run in flight, a failing
// graph, streaming — passes with graphs in worker threads too, as do the SDK's cancel,
// delete-while-running and interrupt/resume cases. The release checks run the other run suites
// that way (test/adapters/run-workers.suites.release.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTestFiles } from '../support/testFiles.ts';

test("the run suites pass with graphs in worker threads (the product's default)", { timeout: 300_000 }, async () => {
  const inWorkers = { AGENTPLANE_TEST_RUN_WORKERS: 'default' };
  const [runs, client] = await Promise.all([
    runTestFiles(['test/handlers/agent-server/runs.sdk.test.ts'], inWorkers),
    runTestFiles(
      ['test/handlers/agent-server/runs.sdkClient.test.ts'],
      inWorkers,
      '^(config\\.recursion_limit|cancel:|delete of a running run|a stateless run cancelled)',
    ),
  ]);
  for (const run of [runs, client]) {
    assert.equal(run.status, 0, run.output.slice(-4000));
    assert.match(run.stdout, /^# fail 0$/m);
  }
  assert.ok(runs.passed >= 9, `every case of sdk-runs ran (${runs.passed} passed)`);
  assert.ok(client.passed >= 4, `the cancel and interrupt cases ran (${client.passed} passed)`);
});
