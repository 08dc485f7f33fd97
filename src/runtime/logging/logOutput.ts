// Where log lines go, and when they are written. The flush rule, which operators and tests rely on:
// - an access line (one per answered request, `"msg":"request"`) may wait in a buffer: it is
//   written with the next other line, when 16,000 characters wait (~16 KB), or within 100 ms, whichever comes first;
//   so may a routine line (Logger.routine: a run's end, `"msg":"run finished"`);
// - every other line (a start, a stop, a warning, an error, the rest of a run's or a revision's
//   story) is written at once, with the lines waiting before it, so lines keep their order;
// - what waits is written before the process ends: at exit (normal, process.exit, an uncaught
//   exception) and on SIGINT or SIGTERM. Only kill -9 (or an out-of-memory kill) loses the last
//   100 ms of access and routine lines.
// So a busy server makes one write per ~100 access lines instead of one each.
//
// Why the writes themselves are synchronous (sonic-boom's `sync`): its asynchronous mode leaves
// the chunk it is writing out of its synchronous flush, and when stdout is a pipe that is full
// (EAGAIN) that chunk waits for a retry timer the end of the process never runs: 98 of the last
// lines (16 KB) were lost at a SIGTERM (test/runtime/logging/logOutput.test.ts). The batching is what
// saves the cost; a write per 16 KB costs less than a thread-pool write per batch.
import { destination } from 'pino';

/** Where a logger writes its lines: `write` may keep a line back; `flush` writes what was kept, now. */
export interface LogSink {
  write(line: string): void;
  flush(): void;
}

/** A sink that keeps nothing back: each line goes to `write` as it is made (a test's array, a pretty terminal). */
export function directSink(write: (line: string) => void): LogSink {
  return { write, flush: () => {} };
}

/** sonic-boom in buffer mode (its types know only its string mode). */
interface Buffered {
  write(chunk: Buffer): boolean;
  flushSync(): void;
}

/** Writes what is buffered now, synchronously; a stream that cannot take it (stdout closed) is left be. */
function flushNow(stream: Buffered): void {
  try {
    stream.flushSync();
  } catch {
    // nothing more can be written there
  }
}

/**
 * A signal ends the process without its exit hooks unless someone handles it: the lines are
 * written first. When this is the signal's only listener (the server has not yet installed its
 * own stop, or a command has none) the signal is then raised again, so the process ends as it
 * would have; otherwise the other listener stops the process and its exit flushes what follows.
 */
function flushOnSignals(stream: Buffered): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    const onSignal = () => {
      flushNow(stream);
      if (process.listenerCount(signal) > 1) return;
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * Makes the process's stdout or stderr block its writes when it is a pipe or a socket. Node's
 * `process.stdout` over a pipe (a container's log driver, systemd, `| tee`) sets the descriptor
 * non-blocking (`O_NONBLOCK` in /proc/<pid>/fdinfo/1 once anything reads process.stdout, as the
 * sink's choice does: isTTY), and sonic-boom's synchronous write answers a full pipe's EAGAIN by
 * sleeping the main thread 100 ms before it tries again: every time the log's reader fell behind by
 * a pipe's buffer, the server stopped answering for 100 ms. A blocking write waits only until the
 * reader has drained enough. A file or a terminal is left as it is.
 */
function blockingWrites(fd: number): void {
  if (fd !== 1 && fd !== 2) return;
  const stream = fd === 1 ? process.stdout : process.stderr;
  const handle = (stream as unknown as { _handle?: { setBlocking?(blocking: boolean): number } })._handle;
  if (stream.isTTY !== true) handle?.setBlocking?.(true);
}

/** How many UTF-16 units of lines wait before they are written (at most 48 KB of UTF-8; most lines are ASCII, one byte a unit). */
const CHUNK_UNITS = 16_000;
/** The longest an access line waits. */
const WAIT_MS = 100;

/**
 * Lines to the file descriptor `fd`, kept back and written by the flush rule above. The lines
 * waiting are kept as the strings pino made, and joined and encoded once, when 16,000 characters
 * wait (~100 access lines): one string and one encoding a write. Copied into a byte buffer as
 * each came instead, each line was first flattened by V8 (pino's line is a rope of its parts)
 * and encoded by a call of its own: ~0.25 µs of the ~1 µs a line costs. A line waits ~2 ms at
 * 40,000 requests a second, and no young collection outlives it; the 100 ms wait is reached only
 * when few requests come. (One string grown by each line, as before, kept ~100 lines' text alive
 * up to 100 ms at every rate.) sonic-boom does the writing: a partial write, a full pipe
 * (EAGAIN) retried.
 */
export function bufferedSink(fd: number): LogSink {
  blockingWrites(fd);
  const stream = destination({ dest: fd, sync: true, contentMode: 'buffer', minLength: 0 }) as unknown as Buffered;
  let waiting: string[] = [];
  let units = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    if (units > 0) {
      const text = waiting.join('');
      waiting = [];
      units = 0;
      try {
        stream.write(Buffer.from(text));
      } catch {
        // nothing more can be written there (stdout closed)
      }
    }
    flushNow(stream);
  };
  const onTime = () => {
    timer = undefined;
    flush();
  };
  const buffered: Buffered = { write: () => true, flushSync: flush };
  process.on('exit', flush);
  flushOnSignals(buffered);
  return {
    write: (line) => {
      waiting.push(line);
      units += line.length;
      if (units >= CHUNK_UNITS) flush();
      else timer ??= setTimeout(onTime, WAIT_MS).unref();
    },
    flush,
  };
}

let stdout: LogSink | undefined;

/**
 * Lines to stdout, buffered; one buffer for every logger of the process. It (and its exit and
 * signal listeners) is made at the first line written, so a logger that never writes
 * (LOG_LEVEL=silent, a test's) touches nothing.
 */
export function stdoutSink(): LogSink {
  return {
    write: (line) => (stdout ??= bufferedSink(1)).write(line),
    flush: () => stdout?.flush(),
  };
}

/** Where log lines are written: stdout, or in a test a stand-in that says whether it is a terminal. */
export interface LogOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Where log lines go: JSON lines for machines, or — on a terminal, unless LOG_FORMAT=json —
 * the same lines made readable by pino-pretty (loaded only then), written as they come (a
 * person is reading). LOG_FORMAT=pretty asks for readable lines off a terminal too (without colours).
 */
export async function logSink(env: Record<string, string | undefined> = process.env, out?: LogOutput): Promise<LogSink> {
  const isTTY = out ? out.isTTY === true : process.stdout.isTTY === true;
  const pretty = env.LOG_FORMAT === 'pretty' || (isTTY && env.LOG_FORMAT !== 'json');
  if (!pretty) return out ? directSink((line) => void out.write(line)) : stdoutSink();
  const target = out ?? process.stdout;
  const { prettyFactory } = (await import('pino-pretty')) as unknown as { prettyFactory: (options: Record<string, unknown>) => (line: string) => string };
  const format = prettyFactory({ colorize: isTTY, messageKey: 'msg', timestampKey: 'time', translateTime: 'SYS:HH:MM:ss.l', levelKey: 'level' });
  return directSink((line) => void target.write(format(line)));
}
