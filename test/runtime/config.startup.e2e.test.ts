// Start-up says what is in force and refuses what it cannot use (issue 11, item 15): the API
// keys in force and where they came from (never their values); a bad keys file, project file
// or setting stops the start with exit code 1 naming the file or setting and what it takes;
// a port in use names host:port and how to pick another; a project file without graphs or
// with a misspelt key warns.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { loadConfig } from '../../src/runtime/config.ts';
import { ROOT, spawnServer, tempDir } from '../support/server.ts';

const CONFIG = path.join(ROOT, 'agentplane.json');
const TENANT = '55555555-5555-4555-8555-555555555555';

/** `agentplane serve` that is expected to stop at start: its exit code and what it printed. */
function refusedStart(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(ROOT, 'bin/agentplane.js'), 'serve', '--host', '127.0.0.1', ...args],
      { env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', AGENTPLANE_API_KEYS: '', AGENTPLANE_API_KEYS_FILE: '', DATA_DIR: '', ...env }, timeout: 60_000 },
      (_err, stdout, stderr) => resolve({ code: child.exitCode, output: stdout + stderr }),
    );
  });
}

const jsonLines = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);

describe('start-up settings', () => {
  it('refuses a setting it cannot use, naming it and the values it takes (exit 1)', async () => {
    const memory = ['--memory', '--config', CONFIG];
    // one real start shows the path a refused setting takes: its message printed, exit 1
    const level = await refusedStart({ LOG_LEVEL: 'verbose' }, memory);
    assert.equal(level.code, 1, level.output);
    assert.match(level.output, /LOG_LEVEL must be one of debug, info, warn, error, silent, got "verbose"/);
    // every other setting is refused by the same reading of the settings, which that start
    // prints verbatim: its message is checked there, without a process each
    const refusal = (env: Record<string, string>) => () => loadConfig(memory, { PORT: '0', ...env }, ROOT);
    assert.throws(refusal({ AGENTPLANE_MAX_BODY_BYTES: 'abc' }), /AGENTPLANE_MAX_BODY_BYTES must be a positive integer .*got "abc"/);
    assert.throws(refusal({ AGENTPLANE_MAX_CONCURRENT_RUNS: '2.5' }), /AGENTPLANE_MAX_CONCURRENT_RUNS must be a positive integer/);
    assert.throws(refusal({ AGENTPLANE_FSYNC: 'maybe' }), /AGENTPLANE_FSYNC must be 1, true, yes or on .* or 0, false, no or off; got "maybe"/);
    assert.throws(refusal({ LOG_FORMAT: 'xml' }), /LOG_FORMAT must be one of json, pretty/);
    assert.throws(refusal({ AGENTPLANE_RUN_WORKERS: '-1' }), /AGENTPLANE_RUN_WORKERS must be 0 or a positive integer .*got "-1"/);
    assert.throws(
      refusal({ AGENTPLANE_RUN_WORKER_MEMORY_MB: '8' }),
      /AGENTPLANE_RUN_WORKER_MEMORY_MB must be a whole number of megabytes, at least 16 .*got "8"/,
    );
  });

  it('names the keys file, the setting behind it and the problem; an unreadable project file is not called invalid JSON', async () => {
    const dir = tempDir('agentplane-settings-');
    const keysFile = path.join(dir, 'keys.json');
    fs.writeFileSync(keysFile, 'nope\n');
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(path.join(dataDir, 'api-keys.json'), JSON.stringify({ keys: [{ key: 'k', tenants: ['not-a-uuid'] }] }));
    const configDir = path.join(dir, 'config-is-a-directory.json');
    fs.mkdirSync(configDir);
    const [named, inData] = await Promise.all([
      refusedStart({ AGENTPLANE_API_KEYS_FILE: keysFile }, ['--memory', '--config', CONFIG]),
      refusedStart({}, ['--data', dataDir, '--config', CONFIG]),
    ]);
    assert.equal(named.code, 1, named.output);
    assert.match(named.output, new RegExp(`AGENTPLANE_API_KEYS_FILE \\(${keysFile}\\) is not valid JSON .*expected \\{"keys"`));
    assert.equal(inData.code, 1, inData.output);
    assert.match(inData.output, /keys file in the data directory \(.*api-keys\.json; --data \/ DATA_DIR\) keys\[0\] needs .* tenant UUIDs/);
    // the project file is read with the settings: refused there, printed as the first case shows
    assert.throws(
      () => loadConfig(['--memory', '--config', configDir], { PORT: '0' }, ROOT),
      (err: Error) =>
        /project file .*config-is-a-directory\.json \(named by --config\): cannot be read: EISDIR/.test(err.message) && !/not valid JSON/.test(err.message),
    );
  });

  it('a port in use names host:port and how to choose another', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { code, output } = await refusedStart({}, ['--memory', '--config', CONFIG, '--port', String(port)]);
      assert.equal(code, 1, output);
      assert.match(output, new RegExp(`127\\.0\\.0\\.1:${port}: the port is already in use`));
      assert.match(output, /--port <n> or PORT=<n>/);
    } finally {
      taken.close();
    }
  });

  it('says which keys are in force and where from, and that AGENTPLANE_API_KEYS leaves the data directory’s keys file unused', async () => {
    const data = tempDir();
    const first = await spawnServer(['--data', data, '--config', CONFIG], { AGENTPLANE_API_KEYS: '' });
    // printed just after the listening line
    for (let i = 0; i < 100 && !/API key \(created on first start\)/.test(first.output()); i += 1) await new Promise((r) => setTimeout(r, 50));
    const created = /API key \(created on first start\): (\S+)/.exec(first.output())?.[1];
    assert.ok(created, `a key was created and printed:\n${first.output()}`);
    assert.equal((await fetch(`${first.url}/v2/deployments`, { headers: { 'x-api-key': created } })).status, 200, 'the printed key works');
    assert.equal(await first.kill('SIGTERM'), 0, 'SIGTERM exits cleanly');
    const inForce = (output: string) => jsonLines(output).filter((l) => l.msg === 'API keys in force');
    assert.deepEqual(
      inForce(first.output()).map((l) => [l.from, l.count, l.file]),
      [['created on this start', 1, path.join(data, 'api-keys.json')]],
    );

    const envKey = 'settings-env-key-0123456789';
    const overridden = await spawnServer(['--data', data, '--config', CONFIG], { AGENTPLANE_API_KEYS: `${envKey}:${TENANT}` });
    await overridden.kill('SIGTERM');
    const lines = jsonLines(overridden.output());
    assert.deepEqual(
      inForce(overridden.output()).map((l) => [l.level, l.from, l.count, l.tenants]),
      [['info', 'AGENTPLANE_API_KEYS', 1, 1]],
    );
    const warning = lines.find((l) => l.level === 'warn' && l.file === path.join(data, 'api-keys.json'));
    assert.ok(warning, 'a warning names the keys file that is not in force');
    assert.match(warning.msg, /AGENTPLANE_API_KEYS is set, so the keys in .* are not in force/);
    // key values never reach the log
    assert.doesNotMatch(overridden.output(), new RegExp(`${envKey}|${created}`));

    // a restart reuses the kept key, silently
    const again = await spawnServer(['--data', data, '--config', CONFIG], { AGENTPLANE_API_KEYS: '' });
    const reused = await fetch(`${again.url}/v2/deployments`, { headers: { 'x-api-key': created } });
    await again.kill('SIGTERM');
    assert.equal(reused.status, 200, 'the key kept in the data directory works after a restart');
    assert.doesNotMatch(again.output(), /created on first start/);
    assert.deepEqual(
      inForce(again.output()).map((l) => [l.from, l.count]),
      [['data directory keys file', 1]],
    );
    assert.doesNotMatch(again.output(), new RegExp(created!));
  });

  it('warns at start about a project file with no graphs and a misspelt key', async () => {
    const dir = tempDir('agentplane-project-');
    fs.writeFileSync(path.join(dir, 'agentplane.json'), JSON.stringify({ grahps: { echo: './echo.ts:echo' } }));
    const server = await spawnServer(['--memory'], { AGENTPLANE_API_KEYS: `k:${TENANT}` }, dir);
    await server.kill('SIGTERM');
    const warnings = jsonLines(server.output())
      .filter((l) => l.level === 'warn')
      .map((l) => String(l.msg));
    assert.ok(
      warnings.some((w) => /unknown key "grahps" .* \(did you mean "graphs"\?\)/.test(w)),
      warnings.join('\n'),
    );
    assert.ok(
      warnings.some((w) => /names no graphs/.test(w)),
      warnings.join('\n'),
    );
  });
});
