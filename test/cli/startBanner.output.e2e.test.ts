// What a person sees when starting `agentplane serve` (issue 56, first minutes): the same start
// banner as dev — API, dashboard, docs, graphs — whether or not stdout is a terminal. Piped,
// the banner goes to stderr so stdout stays one JSON object per line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { uuid5 } from '../../src/domain/agent/ids.ts';
import { ROOT, tempDir } from '../support/server.ts';

/** Starts serve with its stdout and stderr apart, and stops it once the banner is out. */
async function serveUntilBanner(): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'serve', '--port', '0', '--data', tempDir(), '--examples'], {
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: '', AGENTPLANE_API_KEYS: '', AGENTPLANE_SCHEMA_WARMUP: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // the created key's notice is the last thing said at start (60 s at most on a loaded machine)
  for (let i = 0; i < 1200 && child.exitCode === null && !/API key \(created on first start\)/.test(stdout + stderr); i += 1)
    await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGTERM');
  await exited;
  return { stdout, stderr };
}

describe('serve at start, piped', () => {
  it('prints the banner (API, dashboard, docs, graphs) on stderr and only JSON lines on stdout', async () => {
    const { stdout, stderr } = await serveUntilBanner();
    const url = /API\s+(http:\/\/127\.0\.0\.1:\d+)\n/.exec(stderr)?.[1];
    assert.ok(url, `a banner on stderr:\n${stderr}\n--- stdout:\n${stdout}`);
    assert.match(stderr, /agentplane serve — real mode/);
    assert.ok(stderr.includes(`dashboard  ${url}/dashboard\n`));
    assert.ok(stderr.includes(`docs       ${url}/docs\n`));
    assert.match(stderr, new RegExp(`echo\\s+assistant ${uuid5('echo')}`));
    assert.match(stderr, /API key \(created on first start\): \S+/);
    const lines = stdout.split('\n').filter(Boolean);
    assert.ok(lines.length > 0);
    for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not JSON on stdout: ${line}`);
    const listening = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'agentplane listening');
    assert.deepEqual([listening?.url, listening?.dashboard, listening?.docs], [url, `${url}/dashboard`, `${url}/docs`]);
  });
});
