// Lines on stdout are buffered and written asynchronously; none may be lost when the process
// ends: at exit, at a crash (an uncaught exception), at SIGTERM or SIGINT whether or not the
// process handles them. Each case is a child process that logs many lines at once (so most
// are still in the buffer) and then ends as named, while its stdout is a full pipe (the reader
// is away for a moment, as a busy log shipper is); every line must arrive, in order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LINES = 20_000;

/** How the child ends after logging its lines. */
const ENDINGS = {
  exit: 'process.exit(0);',
  crash: "setImmediate(() => { throw new Error('boom after logging'); });",
  // a process with work to wait for (a server), no listener of its own: the signal would end it before any exit hook
  sigterm: "setInterval(() => {}, 1000); process.kill(process.pid, 'SIGTERM');",
  sigint: "setInterval(() => {}, 1000); process.kill(process.pid, 'SIGINT');",
  // the CLI's way: a listener that logs its stop and exits once the server is closed
  stopped:
    "setInterval(() => {}, 1000); process.on('SIGTERM', () => { log.info('shutting down'); setTimeout(() => process.exit(0), 20); }); process.kill(process.pid, 'SIGTERM');",
  // nothing left to do: the event loop empties
  drained: '',
} as const;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function logThenEnd(ending: keyof typeof ENDINGS): Promise<Ended> {
  const script = `
    const { createLogger } = await import(${JSON.stringify(path.join(ROOT, 'src/runtime/logger.ts'))});
    const log = createLogger('info');
    process.stderr.write('logging\\n');
    for (let i = 0; i < ${LINES}; i += 1) log.info('line', { i, pad: 'x'.repeat(100) });
    log.error('last words', { i: ${LINES} });
    process.stderr.write('logged\\n');
    ${ENDINGS[ending]}
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, LOG_FORMAT: 'json' } });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  // not read until the child has logged everything and begun to end, and a moment more (or,
  // when its writes wait for the reader, a second after it began): its pipe is full as it ends
  child.stdout.pause();
  let resuming: NodeJS.Timeout | undefined;
  const resumeIn = (ms: number) => {
    clearTimeout(resuming);
    resuming = setTimeout(() => child.stdout.resume(), ms);
  };
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (d.includes('logged\n')) resumeIn(300);
    else if (d.includes('logging\n')) resumeIn(1000);
  });
  return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/** Every line, whole and in order, then the last words and what the ending adds. */
function assertAllLines(ended: Ended, after: string[] = []): void {
  const lines = ended.stdout.split('\n');
  assert.equal(lines.pop(), '', 'the output ends with a whole line');
  const parsed = lines.map((l) => JSON.parse(l) as { msg: string; i?: number });
  assert.equal(parsed.length, LINES + 1 + after.length, `${parsed.length} lines arrived; stderr: ${ended.stderr.slice(0, 500)}`);
  parsed.slice(0, LINES).forEach((line, i) => assert.equal(line.i, i, `line ${i} in its place`));
  assert.deepEqual(
    parsed.slice(LINES).map((l) => l.msg),
    ['last words', ...after],
  );
}

describe('log lines on stdout at the end of the process', () => {
  it('all arrive when the process exits', async () => {
    const ended = await logThenEnd('exit');
    assert.equal(ended.code, 0);
    assertAllLines(ended);
  });

  it('all arrive when it crashes, and the crash still ends it with code 1 and its stack', async () => {
    const ended = await logThenEnd('crash');
    assert.equal(ended.code, 1);
    assert.match(ended.stderr, /boom after logging/);
    assertAllLines(ended);
  });

  it('all arrive when SIGTERM or SIGINT ends a process that does not handle it, which still ends by the signal', async () => {
    const [term, int] = await Promise.all([logThenEnd('sigterm'), logThenEnd('sigint')]);
    assert.equal(term.signal, 'SIGTERM');
    assertAllLines(term);
    assert.equal(int.signal, 'SIGINT');
    assertAllLines(int);
  });

  it('all arrive, and the stop’s own line after them, when the process stops itself on SIGTERM', async () => {
    const ended = await logThenEnd('stopped');
    assert.equal(ended.code, 0);
    assertAllLines(ended, ['shutting down']);
  });

  it('all arrive when the process ends with nothing left to do', async () => {
    const ended = await logThenEnd('drained');
    assert.equal(ended.code, 0);
    assertAllLines(ended);
  });
});
