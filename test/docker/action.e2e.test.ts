// action.yml's start-and-wait step, run as GitHub Actions would run it (bash, the inputs as
// its environment, GITHUB_OUTPUT): it starts agentplane in the background, returns once /ok
// answers, and hands out a URL and an API key that the control plane accepts.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { ROOT, tempDir } from '../support/server.ts';
import { freePort } from '../../scripts/freePort.ts';

type Action = { inputs: Record<string, { default: string }>; runs: { using: string; steps: { env: Record<string, string>; run: string }[] } };

describe('action.yml', () => {
  const action = parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as Action;
  const pids: number[] = [];
  after(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  });

  /** Runs the composite step with these inputs (the rest at their defaults). */
  async function startWith(inputs: Record<string, string>): Promise<Record<string, string>> {
    const dir = tempDir('agentplane-action-');
    const step = action.runs.steps[0]!;
    const values = { ...Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, v.default])), ...inputs };
    // the step's env maps inputs: `AP_MODE: ${{ inputs.mode }}`
    const env = Object.fromEntries(Object.entries(step.env).map(([name, expr]) => [name, values[/inputs\.([\w-]+)/.exec(expr)![1]!] ?? '']));
    const output = path.join(dir, 'github-output');
    const result = spawnSync('bash', ['-c', step.run], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', ...env, GITHUB_OUTPUT: output, RUNNER_TEMP: dir },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(result.status, 0, result.stdout + result.stderr);
    const outputs = Object.fromEntries(
      fs
        .readFileSync(output, 'utf8')
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    pids.push(Number(fs.readFileSync(`${outputs['log-file']}.pid`, 'utf8')));
    return outputs;
  }

  it('is a composite action', () => {
    assert.equal(action.runs.using, 'composite');
  });

  for (const mode of ['serve', 'mock']) {
    it(`starts ${mode} in the background, waits for /ok and outputs a working url and key`, async () => {
      const outputs = await startWith({ mode, command: `node ${path.join(ROOT, 'bin/agentplane.js')}`, port: String(await freePort()) });
      assert.match(outputs.url!, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal((await fetch(`${outputs.url}/ok`)).status, 200);
      const res = await fetch(`${outputs.url}/v2/deployments`, { headers: { 'X-Api-Key': outputs['api-key']! } });
      assert.equal(res.status, 200);
      assert.match(fs.readFileSync(outputs['log-file']!, 'utf8'), new RegExp(`"mode":"${mode === 'serve' ? 'real' : 'mock'}"`));
    });
  }
});
