// The conformance command's watch over node's test runner (src/cli/conformanceRunner.ts), with a
// real runner over small suite files: an ordinary end keeps the runner's code, Ctrl-C before the
// suite has started stops the runner, and a runner that spins forever once the suite's process
// has ended (node 20: a report that reads as a frame never completed, nodejs/node#62693) is
// stopped after its grace period instead of holding the command (a CI job held for 45 minutes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { watchConformanceRunner } from '../../src/cli/conformanceRunner.ts';
import { tempDir } from '../support/tempDirs.ts';

/** node --test over a suite file whose body is `body`, then writes its pid where the command reads it (as the real suite does: after
 * its signal handlers are set, else a Ctrl-C sent at once finds none and ends the process without its cleaning). */
function runnerOver(body: string) {
  const dir = tempDir('agentplane-conformance-runner-');
  const pidFile = path.join(dir, 'suite.pid');
  const file = path.join(dir, 'suite.test.mjs');
  fs.writeFileSync(
    file,
    `import fs from 'node:fs';\nimport { test } from 'node:test';\n${body}\nfs.writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n`,
  );
  const { NODE_TEST_CONTEXT: _outer, ...env } = process.env;
  // the suite's body may name its pid file (PID_FILE_UNDER_TEST), as the real suite names CONFORMANCE_PID_FILE
  const child = spawn(process.execPath, ['--test', '--test-reporter=dot', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, PID_FILE_UNDER_TEST: pidFile },
  });
  child.stdout.resume();
  child.stderr.resume();
  // a runner left spinning by a failed check is not left behind
  const done = () => {
    child.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { child, pidFile, done };
}

/** Whether the process `pid` is still there. */
const exists = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("an ordinary end is the runner's: 0 when the suite passed, 1 when it failed, nothing said", async () => {
  for (const [body, expected] of [
    ["test('passes', () => {});", 0],
    ["test('fails', () => { throw new Error('planted'); });", 1],
  ] as const) {
    const { child, pidFile, done } = runnerOver(body);
    try {
      const watch = watchConformanceRunner(child, { pidFile, graceMs: 5_000, pollMs: 50 });
      assert.deepEqual(await watch.ended, { code: expected });
    } finally {
      done();
    }
  }
});

test('Ctrl-C goes to the suite’s process alone, which ends as it chooses; the command ends with 130', async () => {
  const marker = path.join(tempDir('agentplane-conformance-marker-'), 'cleaned');
  const { child, pidFile, done } = runnerOver(
    `process.on('SIGINT', () => { fs.writeFileSync(${JSON.stringify(marker)}, 'deleted'); process.exit(130); });\ntest('waits', () => new Promise(() => setInterval(() => {}, 1000)));`,
  );
  try {
    const watch = watchConformanceRunner(child, { pidFile, graceMs: 5_000, pollMs: 50 });
    while (!fs.existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 20));
    watch.interrupt('SIGINT');
    watch.interrupt('SIGINT'); // a second Ctrl-C passes nothing more
    assert.deepEqual(await watch.ended, { code: 130 });
    assert.equal(fs.readFileSync(marker, 'utf8'), 'deleted', 'the suite’s own handler ran');
  } finally {
    done();
  }
});

test('a Ctrl-C while the suite’s pid file is there without its pid yet still goes to the suite’s process (a CI flake)', async () => {
  const marker = path.join(tempDir('agentplane-conformance-marker-'), 'cleaned');
  // the file made empty first and its pid written a moment later, as a plain writeFileSync leaves it for an instant
  const { child, pidFile, done } = runnerOver(
    `process.on('SIGINT', () => { fs.writeFileSync(${JSON.stringify(marker)}, 'deleted'); process.exit(130); });\ntest('waits', () => new Promise(() => setInterval(() => {}, 1000)));\nfs.writeFileSync(process.env.PID_FILE_UNDER_TEST, '');\nawait new Promise((resolve) => setTimeout(resolve, 300));`,
  );
  try {
    const watch = watchConformanceRunner(child, { pidFile, graceMs: 5_000, pollMs: 50 });
    while (!fs.existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(fs.readFileSync(pidFile, 'utf8'), '', 'interrupted while the file holds no pid');
    watch.interrupt('SIGINT');
    assert.deepEqual(await watch.ended, { code: 130 });
    assert.equal(fs.readFileSync(marker, 'utf8'), 'deleted', 'the suite’s own handler ran, not the runner’s stop');
  } finally {
    done();
  }
});

test(
  'a runner spinning after the suite’s process has ended is stopped once its grace is over, and the command ends 1 saying so',
  { timeout: 60_000 },
  async () => {
    // FF 0F is the start of a serialised report; the four bytes after it, a length no report reaches
    const { child, pidFile, done } = runnerOver(
      "test('writes a frame never completed', () => { process.stdout.write(Buffer.from([0xff, 0x0f, 0x7f, 0xff, 0xff, 0xff])); });",
    );
    try {
      const watch = watchConformanceRunner(child, { pidFile, graceMs: 1_000, pollMs: 50 });
      const started = Date.now();
      const end = await watch.ended;
      // node 20's runner spins here (without the watch the command waited for ever); a runner without the bug ends on its own
      if (end.code !== 0) {
        assert.equal(end.code, 1);
        assert.match(end.note ?? '', /did not end 1000 ms after the suite's process had; it was stopped/);
      }
      assert.ok(Date.now() - started < 30_000, 'ended within the grace, not at a time limit');
      assert.equal(exists(child.pid!), false, 'no runner left behind');
    } finally {
      done();
    }
  },
);
