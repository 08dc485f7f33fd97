// The integration tests users rely on most — the CI/CD pipeline against the control plane
// and the LangGraph SDK against the agent server — run once more, unchanged, through the
// Prism validation proxy: any request or answer Prism finds off-spec fails them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from '../support/server.ts';

// Prism's proxy forwards a response only once it is complete, so Server-Sent Events arrive
// all at once when the stream ends: the SDK tests that wait on a live stream to interrupt a
// running run cannot run through it and are left out (only the named ones run; all of them run directly elsewhere).
const cases = [
  { file: 'test/control-plane/pipeline.test.ts', spec: 'spec/control-plane.openapi.yaml', pattern: undefined },
  { file: 'test/agent-server/sdk-runs.test.ts', spec: 'spec/agent-server.openapi.yaml', pattern: '^(runs 20|answers 409|a failing graph|streams metadata|creates a thread|searches and deletes)' },
];

for (const { file, spec, pattern } of cases) {
  test(`${file} passes through prism proxy ${path.basename(spec)} --errors`, { timeout: 180_000 }, () => {
    // without NODE_TEST_CONTEXT the child reports as a top-level run (TAP on stdout)
    const { NODE_TEST_CONTEXT: _inherited, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...(pattern ? [`--test-name-pattern=${pattern}`] : []), path.join(ROOT, file)], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...env, AGENTPLANE_TEST_VIA_PRISM: spec, AGENTPLANE_VALIDATE_RESPONSES: '0' },
    });
    const output = `${run.stdout}\n${run.stderr}`;
    assert.equal(run.status, 0, output.slice(-4000));
    assert.match(run.stdout, /^# fail 0$/m);
    assert.doesNotMatch(run.stdout, /^# pass 0$/m, 'the integration tests ran');
    assert.match(run.stdout, pattern ? /^# pass [4-9]$/m : /^# pass [1-9]/m, 'the expected tests ran');
  });
}
