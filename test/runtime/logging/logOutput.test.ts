// The flush rule of the log (src/runtime/logging/logOutput.ts): access lines and routine lines (a
// run's end) may wait in a buffer (at most 100 ms), every other line is written at once with those waiting before it; and none may
// be lost when the process ends: at exit, at a crash (an uncaught exception), at SIGTERM or
// SIGINT whether or not the process handles them. Each ending is a child process that logs many
// access lines at once (so most are still in the buffer) and then ends as named, while its
// stdout is a full pipe (the reader is away for a moment, as a busy log shipper is); every line
// must arrive, in order.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLogger, type AccessLine } from '../../../src/runtime/logging/logger.ts';
import { bufferedSink } from '../../../src/runtime/logging/logOutput.ts';
import { logLines } from '../../support/logLines.ts';
import { until } from '../../support/until.ts';
import { tempDir } from '../../support/tempDirs.ts';
import { childImport } from '../../support/childImports.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const LINES = 20_000;
/** The logger as the children load it (compiled in npm test: src/ as dist/ runs it). */
const logger = childImport('src/runtime/logging/logger.ts');

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
    const { createLogger } = await import(${JSON.stringify(logger.url)});
    const log = createLogger('info');
    process.stderr.write('logging\\n');
    const line = (path) => ({ method: 'GET', path, status: 200, ms: 0.1, request_id: 'r-1', operation: 'ok' });
    for (let i = 0; i < ${LINES}; i += 1) log.access(line('/line/' + i + '/' + 'x'.repeat(100)));
    log.access(line('/last-words'));
    process.stderr.write('logged\\n');
    ${ENDINGS[ending]}
  `;
  const child = spawn(process.execPath, [...logger.flags, '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, LOG_FORMAT: 'json' } });
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
  const parsed = lines.map((l) => JSON.parse(l) as { msg: string; path?: string });
  assert.equal(parsed.length, LINES + 1 + after.length, `${parsed.length} lines arrived; stderr: ${ended.stderr.slice(0, 500)}`);
  parsed.slice(0, LINES).forEach((line, i) => assert.equal(line.path, `/line/${i}/${'x'.repeat(100)}`, `line ${i} in its place`));
  assert.deepEqual(
    parsed.slice(LINES).map((l) => l.path ?? l.msg),
    ['/last-words', ...after],
  );
}

describe('when log lines are written', () => {
  /** A logger over a buffered file, and the lines the file holds now (an access line by its path, any other by its message). */
  function toFile() {
    const file = path.join(tempDir('log-flush-'), 'log');
    const log = createLogger('info', {}, bufferedSink(fs.openSync(file, 'w')));
    const lines = () => logLines(fs.readFileSync(file, 'utf8'));
    return { log, lines, written: () => lines().map((l) => (l.msg === 'request' ? `request ${l.path}` : l.msg) as string) };
  }

  /** The access line of a request to `path`. */
  const accessTo = (path: string): AccessLine => ({ method: 'GET', path, status: 200, ms: 0.4, request_id: 'r-1', operation: 'ok' });

  it('an access line waits in the buffer, and is written within 100 ms with nothing else logged', async () => {
    const { log, written } = toFile();
    log.access(accessTo('/ok'));
    assert.deepEqual(written(), [], 'kept back');
    const started = Date.now();
    await until('the access line', () => written().length === 1);
    assert.ok(Date.now() - started < 1_000, 'written by the periodic flush');
  });

  it('a routine line (a run’s end) waits with the access lines: written with the next other line, or within 100 ms with nothing else logged; only where info is', async () => {
    const { log, written } = toFile();
    log.access(accessTo('/a'));
    log.child({ run_id: 'r-1' }).routine('run finished', { outcome: 'success' });
    assert.deepEqual(written(), [], 'kept back, as the access line before it');
    log.warn('run retried');
    assert.deepEqual(written(), ['request /a', 'run finished', 'run retried'], 'in the order logged');
    log.routine('run finished', { outcome: 'error' });
    const started = Date.now();
    await until('the routine line', () => written().length === 4);
    assert.ok(Date.now() - started < 1_000, 'written by the periodic flush');
    const file = path.join(tempDir('log-flush-'), 'log');
    createLogger('warn', {}, bufferedSink(fs.openSync(file, 'w'))).routine('run finished');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(fs.readFileSync(file, 'utf8'), '', 'below warn');
  });

  it('every other line is written at once, after the access lines waiting before it', () => {
    const { log, written } = toFile();
    log.access(accessTo('/a'));
    log.access(accessTo('/b'));
    log.info('revision status', { status: 'DEPLOYED' });
    assert.deepEqual(written(), ['request /a', 'request /b', 'revision status']);
    log.child({ run_id: 'r-1' }).warn('run retried');
    assert.deepEqual(written(), ['request /a', 'request /b', 'revision status', 'run retried']);
    for (const level of ['debug', 'error'] as const) log[level](level);
    assert.deepEqual(written().slice(4), ['error'], 'debug is below info; error at once');
  });

  it('lines of any length and script arrive whole and in order (multibyte text, and lines longer than a write of 16,000 characters)', () => {
    const { log, written } = toFile();
    const texts = ['é'.repeat(7_000), '日本'.repeat(20_000), 'x'.repeat(70_000), '🙂'.repeat(3_000), 'short'].map((text) => `/${text}`);
    for (const text of texts) for (let k = 0; k < 3; k += 1) log.access(accessTo(text));
    log.info('after them');
    assert.deepEqual(
      written(),
      [...texts.flatMap((text) => [`request ${text}`, `request ${text}`, `request ${text}`]), 'after them'],
      'each text as logged, in order',
    );
  });
});

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

describe('the log on a pipe', () => {
  it("leaves stdout blocking, so a full pipe waits for its reader instead of sonic-boom's 100-ms sleep", async () => {
    // process.stdout over a pipe sets the descriptor non-blocking; the sink is made after it
    const script = `
      process.stdout.isTTY;
      const { createLogger } = await import(${JSON.stringify(logger.url)});
      createLogger('info').info('made');
      const flags = require('node:fs').readFileSync('/proc/self/fdinfo/1', 'utf8').match(/flags:[^0-9]*([0-9]+)/)[1];
      process.stderr.write('flags ' + flags + '\\n');
    `.replace("require('node:fs')", "(await import('node:fs')).default");
    const child = spawn(process.execPath, [...logger.flags, '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, LOG_FORMAT: 'json' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.stdout.resume();
    await new Promise((resolve) => child.once('close', resolve));
    const flags = /flags (\d+)/.exec(stderr)?.[1];
    assert.ok(flags, stderr);
    // O_NONBLOCK is 04000 (octal) on Linux
    assert.equal(parseInt(flags, 8) & 0o4000, 0, `fd 1 is non-blocking: flags ${flags}`);
  });
});
