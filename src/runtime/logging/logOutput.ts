// Where log lines go, and when they are written. The flush rule, which operators and tests rely on:
// - an access line (one per answered request, `"msg":"request"`) may wait in a buffer: it is
//   written with the next other line, when 16 KB are waiting, or within 100 ms, whichever comes first;
// - every other line (a start, a stop, a warning, an error, a run's or a revision's story) is
//   written at once, with the access lines waiting before it, so lines keep their order;
// - what waits is written before the process ends: at exit (normal, process.exit, an uncaught
//   exception) and on SIGINT or SIGTERM. Only kill -9 (or an out-of-memory kill) loses the last
//   100 ms of access lines.
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

/** How many bytes wait before they are written (sonic-boom's largest single write is 16 KB). */
const CHUNK_BYTES = 16_000;
/** The longest an access line waits. */
const WAIT_MS = 100;
/** UTF-8 takes at most 3 bytes for each UTF-16 unit of a string: a line of n units fits in 3n bytes. */
const MAX_BYTES_A_UNIT = 3;

/**
 * Lines to the file descriptor `fd`, kept back and written by the flush rule above. Each line is
 * copied into one 64 KB buffer as it comes, and the bytes are written once 16 KB wait. Kept as
 * strings instead (one string grown by each line), a line's text lived on for up to 100 ms: a
 * young collection found ~100 lines' strings alive and copied them, and moved them to the old
 * space, whose collections grew with them. Copied at once, a line is garbage before the next
 * collection, which costs nothing for it. sonic-boom does the writing: a partial write, a full
 * pipe (EAGAIN) retried.
 */
export function bufferedSink(fd: number): LogSink {
  const stream = destination({ dest: fd, sync: true, contentMode: 'buffer', minLength: 0 }) as unknown as Buffered;
  const waiting = Buffer.allocUnsafe(4 * CHUNK_BYTES);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const writeOut = (bytes: Buffer) => {
    try {
      stream.write(bytes);
    } catch {
      // nothing more can be written there (stdout closed)
    }
  };
  const flush = () => {
    if (used > 0) {
      // a copy: sonic-boom may keep what it was given (a partial write), and `waiting` is written into again
      const bytes = Buffer.from(waiting.subarray(0, used));
      used = 0;
      writeOut(bytes);
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
      if (used + line.length * MAX_BYTES_A_UNIT > waiting.length) {
        flush();
        // a line longer than the buffer can hold goes out on its own
        if (line.length * MAX_BYTES_A_UNIT > waiting.length) return writeOut(Buffer.from(line));
      }
      used += waiting.write(line, used);
      if (used >= CHUNK_BYTES) flush();
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
