// Structured logs: one JSON object per line, made by pino (the logger fastify uses), so a
// line costs a few string concatenations and lands in a buffer written out 4 KB at a time
// (logOutput.ts), not a JSON.stringify and a write of its own each.
import { pino, stdTimeFunctions, type DestinationStream, type Logger as Pino } from 'pino';
import { withErrorsShown } from './logFields.ts';
import { stdoutLines } from './logOutput.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** One line at a level: a message a person reads, and fields a machine filters on. */
type LogLine = (msg: string, fields?: Record<string, unknown>) => void;

/** What the server logs through; it satisfies the domain's port (domain/ports/logger.ts). */
export interface Logger {
  debug: LogLine;
  info: LogLine;
  warn: LogLine;
  error: LogLine;
  /** The same log with `fields` added to every line. */
  child(fields: Record<string, unknown>): Logger;
  enabled(level: LogLevel): boolean;
}

/** Where lines go: a stream (stdoutLines(), a pretty one), or in a test a function given each line. */
export type LogSink = DestinationStream | ((line: string) => void);

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

export function createLogger(level: LogLevel = 'info', base: Record<string, unknown> = {}, sink: LogSink = stdoutLines()): Logger {
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
    typeof sink === 'function' ? { write: sink } : sink,
  );
  return wrap(root);
}

/** Our call shape (message, then fields) over pino's (fields, then message). */
function wrap(log: Pino): Logger {
  return {
    debug: (msg, fields) => log.debug(withErrorsShown(fields), msg),
    info: (msg, fields) => log.info(withErrorsShown(fields), msg),
    warn: (msg, fields) => log.warn(withErrorsShown(fields), msg),
    error: (msg, fields) => log.error(withErrorsShown(fields), msg),
    child: (fields) => wrap(log.child(withErrorsShown(fields) ?? {})),
    enabled: (level) => log.isLevelEnabled(level),
  };
}
