// Issue 28, item 7: `agentplane dev > server.log` in the project folder reloaded forever (each
// reload logs, the log is a change, the change reloads). Only source modules and the project's
// own files count: here two edits of the graph make exactly two reloads, each naming the graph,
// while the server writes its log into the folder it watches.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, tempDir } from '../support/server.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/slow-project');

describe('agentplane dev writing its log into the project folder', () => {
  let dir: string;
  let child: ChildProcess;
  let logFile: string;
  const lines = () =>
    fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; files?: string[] });
  /** Polls the log file (the server writes it; nothing else tells this process) until `done` holds. */
  const waitFor = async (what: string, done: () => boolean, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`);
      if (child.exitCode !== null) throw new Error(`dev exited with ${child.exitCode}:\n${fs.readFileSync(logFile, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  before(async () => {
    dir = tempDir('agentplane-dev-log-');
    fs.cpSync(FIXTURE, dir, { recursive: true });
    logFile = path.join(dir, 'server.log');
    const out = fs.openSync(logFile, 'a');
    child = spawn(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'dev', '--data', path.join(dir, '.state')], {
      cwd: dir,
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    await waitFor('the watcher', () => lines().some((l) => l.msg === 'watching the project for changes'));
  });
  after(() => {
    child?.kill('SIGTERM');
  });

  it('reloads once per edit of the graph, never on its own log lines', async () => {
    const graph = path.join(dir, 'slow.mjs');
    const reloadsNaming = () => lines().filter((l) => l.msg === 'project changed, reloading' && l.files?.includes('slow.mjs')).length;
    for (const edit of [1, 2]) {
      fs.appendFileSync(graph, `\n// edit ${edit}\n`);
      await waitFor(`reload ${edit}`, () => reloadsNaming() >= edit && lines().filter((l) => l.msg === 'graphs reloaded').length >= edit);
    }
    const reloads = lines().filter((l) => l.msg === 'project changed, reloading');
    assert.deepEqual(
      reloads.map((l) => l.files),
      [['slow.mjs'], ['slow.mjs']],
      'a reload for anything but the two edits (the log, the data directory) is the loop',
    );
  });
});
