// The data directory's lock (acquireLock, src/adapters/embedded/dataDir.ts) tells a server
// killed with kill -9 and not yet reaped (a zombie) from a live one (issue 84): a supervisor
// that restarts at once, before it waits for the killed process, was refused "in use by
// another agentplane server" for as long as the zombie stood. A live holder is still refused.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { acquireLock } from '../../../src/adapters/embedded/dataDir.ts';
import { tempDir } from '../../support/server.ts';

const started: ChildProcess[] = [];
after(() => {
  for (const child of started) child.kill('SIGKILL');
});

/** The state letter of a process in /proc/<pid>/stat (Z: exited, not yet reaped). */
function stateOf(pid: number): string {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).charAt(0);
}

/** A LOCK naming `pid`, as a server that took the directory leaves it. */
function lockedBy(pid: number): string {
  const dir = tempDir('agentplane-lock-');
  fs.writeFileSync(path.join(dir, 'LOCK'), JSON.stringify({ pid, hostname: 'here', since: new Date().toISOString() }) + '\n');
  return dir;
}

/**
 * A process killed with kill -9 whose parent never waits for it: the shell starts it in the
 * background and becomes `sleep` (exec), which reaps no child. It stays a zombie until that
 * parent ends (this file's after hook).
 */
async function zombie(): Promise<number> {
  const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(parent);
  const pid = await new Promise<number>((resolve) => parent.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
  // killed while the shell has not yet become `sleep`, the shell reaps it and /proc/<pid> is gone
  for (let i = 0; i < 100 && !fs.readFileSync(`/proc/${parent.pid}/cmdline`, 'utf8').startsWith('sleep'); i += 1) await sleep(10);
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 100 && stateOf(pid) !== 'Z'; i += 1) await sleep(10);
  return pid;
}

test('a lock left by a server killed with kill -9 and not yet reaped is taken over at once', async () => {
  const pid = await zombie();
  assert.equal(stateOf(pid), 'Z', 'the killed process is a zombie: kill(pid, 0) still finds it');
  assert.doesNotThrow(() => process.kill(pid, 0));
  const dir = lockedBy(pid);
  const warnings: Record<string, unknown>[] = [];
  const release = acquireLock(dir, (msg, fields) => warnings.push({ msg, ...fields }));
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8')).pid, process.pid, 'the lock is this process now');
  assert.deepEqual(warnings, [{ msg: 'taking over a stale data directory lock (its process is gone)', file: path.join(dir, 'LOCK'), pid }]);
  release();
  assert.equal(fs.existsSync(path.join(dir, 'LOCK')), false);
});

test('a lock held by a live process is refused, naming it, and left as it is', async () => {
  const live = spawn('sleep', ['600'], { stdio: 'ignore' });
  started.push(live);
  const dir = lockedBy(live.pid!);
  const before = fs.readFileSync(path.join(dir, 'LOCK'), 'utf8');
  assert.throws(
    () => acquireLock(dir, () => assert.fail('a live holder is not stale')),
    (err: Error) => err.name === 'StoreLockedError' && err.message.includes(`in use by another agentplane server (pid ${live.pid} on here`),
  );
  assert.equal(fs.readFileSync(path.join(dir, 'LOCK'), 'utf8'), before);
});
