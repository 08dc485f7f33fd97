// The integration tests users rely on most — the CI/CD pipeline against the control plane
// and the LangGraph SDK against the agent server — run once more, unchanged, through the
// Prism validation proxy: any request or answer Prism finds off-spec fails them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { runTestFiles } from '../support/testFiles.ts';

// Prism's proxy forwards a response only once it is complete, so Server-Sent Events arrive
// all at once when the stream ends: the SDK tests that wait on a live stream to interrupt a
// running run cannot run through it and are left out (only the named ones run; all of them run directly elsewhere).
const cases = [
  { file: 'test/handlers/control-plane/deployments.pipeline.test.ts', spec: 'spec/control-plane.openapi.yaml', pattern: undefined },
  {
    file: 'test/handlers/agent-server/runs.sdk.test.ts',
    spec: 'spec/agent-server.openapi.yaml',
    pattern: '^(runs 20|answers 409|a failing graph|streams metadata|creates a thread|searches and deletes)',
  },
];

for (const { file, spec, pattern } of cases) {
  test(`${file} passes through prism proxy ${path.basename(spec)} --errors`, { timeout: 180_000 }, async () => {
    const run = await runTestFiles([file], { AGENTPLANE_TEST_VIA_PRISM: spec, AGENTPLANE_VALIDATE_RESPONSES: '0' }, pattern);
    assert.equal(run.status, 0, run.output.slice(-4000));
    assert.match(run.stdout, /^# fail 0$/m);
    assert.ok(pattern ? run.passed >= 4 : run.passed > 0, `the expected tests ran (${run.passed} passed)`);
  });
}
