// Structured logs: one JSON object per line, made by pino (the logger fastify uses), so a
// line costs a few string concatenations. Access lines and routine lines (a run's end) land in a
// buffer written out 16 KB at a time; every other line is written at once (the flush rule: logOutput.ts).
import { pino, stdTimeFunctions, symbols, type Logger as Pino } from 'pino';
import { withErrorsShown } from './logFields.ts';
import { accessFields, type AccessLine } from './accessLine.ts';

export type { AccessLine } from './accessLine.ts';
import { directSink, stdoutSink, type LogSink } from './logOutput.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** One line at a level: a message a person reads, and fields a machine filters on. */
type LogLine = (msg: string, fields?: Record<string, unknown>) => void;

/** What the server logs through; it satisfies the domain's port (domain/ports/logger.ts). */
export interface Logger {
  debug: LogLine;
  info: LogLine;
  warn: LogLine;
  error: LogLine;
  /** An info line that may wait in the buffer as an access line does (a run's end: domain/ports/logger.ts). */
  routine: LogLine;
  /**
   * The access line of an answered request, at info (`"msg":"request"` and the line's fields): it
   * may wait in the buffer, written with the next other line, at 16 KB, or within 100 ms. Every
   * other method writes at once.
   */
  access(line: AccessLine): void;
  /** The same log with `fields` added to every line. */
  child(fields: Record<string, unknown>): Logger;
  enabled(level: LogLevel): boolean;
}

/** Where lines go: a sink (stdoutSink(), a pretty one: logOutput.ts), or in a test a function given each line. */
export type LogTarget = LogSink | ((line: string) => void);

/** As every response shows a secret (the domain's SECRET_MASK). */
export const LOG_MASK = '********';

/**
 * Paths where a credential would sit if a line ever carried a request's or a client's headers:
 * written as the mask. Secret values elsewhere (a deployment's secrets in its build output) are
 * removed where they are captured (domain/control-plane/redaction.ts), before anything logs them.
 */
const REDACTED = ['authorization', 'cookie', 'x-api-key', 'proxy-authorization', 'set-cookie'].flatMap((name) => [
  `headers["${name}"]`,
  `req.headers["${name}"]`,
  `request.headers["${name}"]`,
]);

export function createLogger(level: LogLevel = 'info', base: Record<string, unknown> = {}, target: LogTarget = stdoutSink()): Logger {
  const sink = typeof target === 'function' ? directSink(target) : target;
  const root = pino(
    {
      level,
      // no pid or hostname: the fields a line has are the ones its caller gives
      base: Object.keys(base).length ? base : null,
      // the level by its name, as LOG_LEVEL names it (`"level":"info"`); pino caches each level's prefix
      formatters: { level: (label) => ({ level: label }) },
      // milliseconds since the epoch: Date.now() concatenated, no date formatted per line
      timestamp: stdTimeFunctions.epochTime,
      redact: { paths: REDACTED, censor: LOG_MASK },
      // errors are already name, message and stack (logFields.ts); pino's own would add its `type`
      serializers: { err: (value: unknown) => value },
    },
    { write: (line: string) => sink.write(line) },
  );
  return wrap(root, sink);
}

/** Where pino keeps the JSON text of a logger's bindings (a child's fields), written into each of its lines as it is. */
type BindingsHolder = Record<typeof symbols.chindingsSym, string>;

/** An info line's start as this logger's pino writes it: the level by its name (formatters.level above), then the epoch time's key. */
const INFO_START = '{"level":"info","time":';
/** An access line's end: the message, as pino writes a message after every field. */
const ACCESS_END = ',"msg":"request"}\n';

/**
 * The access lines of one logger: the text `log.info(fields, 'request')` writes, field for field
 * and in the same order (level, time, the logger's bindings as pino keeps their JSON text, the
 * fields, msg), joined here and given to the sink. Through pino (its bindings swapped for one
 * line, then `log.info('request')`) each line also paid for pino's call: the message formatted
 * and escaped, an empty object made and walked, the time function and the line's assembly (~2%
 * of a `GET /ok`). test/runtime/logging/logger.test.ts holds the two lines equal, text for text.
 * A logger's level and bindings are fixed once it is made (nothing here sets either on a pino
 * logger again), so both are read once, here: at each line, pino's `levelVal` getter and the
 * bindings' symbol-keyed load (polymorphic: the root and each child differ in shape) were ~300
 * of its ~4,400 instructions.
 */
function accessWriter(log: Pino, sink: LogSink): (line: AccessLine) => void {
  if (log.levelVal > log.levels.values.info) return () => {};
  const bindings = (log as unknown as BindingsHolder)[symbols.chindingsSym];
  return (line) => sink.write(INFO_START + epochText() + bindings + accessFields(line) + ACCESS_END);
}

let epochMs = 0;
let epochMsText = '0';
let epochSecond = 0;
let epochSecondText = '0';

/** The milliseconds of a second as the last three digits of an epoch time: '000' to '999'. */
const MILLIS = Array.from({ length: 1000 }, (_, ms) => String(ms).padStart(3, '0'));

/**
 * An epoch time in milliseconds as `String` writes it, from its seconds' text (made once a
 * second; a small integer's) and three digits of a table. The milliseconds themselves are past
 * a small integer, so `String(now)` went through V8's double-to-text (~700 instructions): on a
 * server with fewer lines than milliseconds (and under callgrind, where a request takes more
 * than one), every line's.
 */
export function epochMillisText(now: number): string {
  if (!Number.isSafeInteger(now) || now < 1000) return String(now);
  const second = Math.floor(now / 1000);
  if (second !== epochSecond) {
    epochSecond = second;
    epochSecondText = String(second);
  }
  return epochSecondText + MILLIS[now - second * 1000];
}

/** Date.now() as text, made once a millisecond: ~10 lines of a busy server share each. */
function epochText(): string {
  const now = Date.now();
  if (now !== epochMs) {
    epochMs = now;
    epochMsText = epochMillisText(now);
  }
  return epochMsText;
}

/** Our call shape (message, then fields) over pino's (fields, then message), and the flush rule. */
function wrap(log: Pino, sink: LogSink): Logger {
  return {
    debug: (msg, fields) => {
      log.debug(withErrorsShown(fields), msg);
      sink.flush();
    },
    info: (msg, fields) => {
      log.info(withErrorsShown(fields), msg);
      sink.flush();
    },
    warn: (msg, fields) => {
      log.warn(withErrorsShown(fields), msg);
      sink.flush();
    },
    error: (msg, fields) => {
      log.error(withErrorsShown(fields), msg);
      sink.flush();
    },
    // no flush: a run's end wrote a line at once, one write(2) a run on the main thread (~40 µs
    // with the access lines it carried: issue 86's 100-thread round)
    routine: (msg, fields) => log.info(withErrorsShown(fields), msg),
    access: accessWriter(log, sink),
    child: (fields) => wrap(log.child(withErrorsShown(fields) ?? {}), sink),
    enabled: (level) => log.isLevelEnabled(level),
  };
}
