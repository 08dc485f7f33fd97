// Where log lines go. On stdout they are appended to a buffer (sonic-boom, pino's destination)
// and written out 4 KB at a time (about 25 access lines a write instead of one each), and at
// least every 100 ms when fewer come. What is still buffered when the process ends is written
// then: at exit (normal, process.exit, an uncaught exception) and on SIGINT or SIGTERM, so a
// crash's or a stop's last lines are not lost.
//
// Why the writes themselves are synchronous: sonic-boom's asynchronous mode leaves the chunk it
// is writing out of its synchronous flush, and when stdout is a pipe that is full (EAGAIN) that
// chunk waits for a retry timer the end of the process never runs: 98 of the last lines (16 KB)
// were lost at a SIGTERM (test/runtime/logOutput.test.ts). A write per 4 KB also costs less
// than its thread-pool write per batch.
import { destination, type DestinationStream } from 'pino';

/** sonic-boom in buffer mode (its types know only its string mode). */
interface Buffered {
  write(chunk: Buffer): boolean;
  flushSync(): void;
}

let stdout: Buffered | undefined;

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

function bufferedStdout(): Buffered {
  if (!stdout) {
    // buffer mode: sonic-boom's string mode measures the whole pending text again for every
    // line it appends (Buffer.byteLength of up to 16 KB): 2.6 µs a line against 0.4 µs here
    const stream = destination({ dest: 1, sync: true, contentMode: 'buffer', minLength: 4096, periodicFlush: 100 }) as unknown as Buffered;
    process.on('exit', () => flushNow(stream));
    flushOnSignals(stream);
    stdout = stream;
  }
  return stdout;
}

/**
 * Lines to stdout, buffered. The buffer (and its signal listeners) is made at the first line
 * written, so a logger that never writes (LOG_LEVEL=silent, a test's) touches nothing.
 */
export function stdoutLines(): DestinationStream {
  return { write: (line: string) => void bufferedStdout().write(Buffer.from(line)) };
}

/** Where log lines are written: stdout, or in a test a stand-in that says whether it is a terminal. */
export interface LogOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Where log lines go: JSON lines for machines, or — on a terminal, unless LOG_FORMAT=json —
 * the same lines made readable by pino-pretty (loaded only then). LOG_FORMAT=pretty asks for
 * readable lines off a terminal too (without colours).
 */
export async function logDestination(
  env: Record<string, string | undefined> = process.env,
  out: LogOutput = { isTTY: process.stdout.isTTY, ...stdoutLines() },
): Promise<DestinationStream> {
  const pretty = env.LOG_FORMAT === 'pretty' || (out.isTTY === true && env.LOG_FORMAT !== 'json');
  if (!pretty) return out;
  const { prettyFactory } = (await import('pino-pretty')) as unknown as { prettyFactory: (options: Record<string, unknown>) => (line: string) => string };
  const format = prettyFactory({ colorize: out.isTTY === true, messageKey: 'msg', timestampKey: 'time', translateTime: 'SYS:HH:MM:ss.l', levelKey: 'level' });
  return { write: (line) => void out.write(format(line)) };
}
