// The run suites — the SDK's runs client, stream modes, restarts and graphs — once more
// with graphs in worker threads (the product's default; test servers run graphs on the
// request loop unless a test asks for workers, see test/support/server.ts), so that neither
// way of executing drifts from the other. The end-to-end suite runs the cases that take every
// execution path that way (test/adapters/run-workers.e2e.test.ts): the runs suite
// (runs.sdk.test.ts) whole, so it is not run a second time here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTestFiles } from '../support/testFiles.ts';

const SUITES = [
  'test/handlers/agent-server/runs.sdkClient.test.ts',
  'test/handlers/agent-server/runStreams.sdk.test.ts',
  'test/domain/agent/graphs/graphs.test.ts',
  'test/domain/agent/runs/runEngine.restart.faults.test.ts',
];

test("the run suites pass with graphs in worker threads (the product's default)", { timeout: 600_000 }, async () => {
  const run = await runTestFiles(SUITES, { AGENTPLANE_TEST_RUN_WORKERS: 'default' });
  assert.equal(run.status, 0, run.output.slice(-4000));
  assert.match(run.stdout, /^# fail 0$/m);
  assert.ok(run.passed >= 35, `the suites ran (${run.passed} passed)`);
});
