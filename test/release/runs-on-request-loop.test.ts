// The five run suites — runs, the SDK's runs client, stream modes, restarts and graphs — once
// more with graphs on the request loop (AGENTPLANE_RUN_WORKERS=0, the debugging mode), so
// that neither way of executing drifts from the other. `npm test` runs the cases that take
// every execution path that way (test/agent-server/runs-on-request-loop.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runTestFiles } from '../support/testFiles.ts';

const SUITES = ['sdk-runs', 'sdk-runs-client', 'sdk-stream-modes', 'restart', 'graphs'].map((name) => `test/agent-server/${name}.test.ts`);

test('the run suites pass with graphs on the request loop (AGENTPLANE_RUN_WORKERS=0)', { timeout: 600_000 }, async () => {
  const run = await runTestFiles(SUITES, { AGENTPLANE_RUN_WORKERS: '0' });
  assert.equal(run.status, 0, run.output.slice(-4000));
  assert.match(run.stdout, /^# fail 0$/m);
  assert.ok(run.passed >= 40, `the suites ran (${run.passed} passed)`);
});
