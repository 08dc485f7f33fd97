// A revision's logs: build output written by the target as JSON lines, server output as the
// agent server wrote it (its own JSON log lines, or plain text). Reading turns either into
// log lines and pages them; the cursor is a line number in the file. The files themselves are
// an adapter's (adapters/log-files/revisionLogFiles.ts).
import type { ListRevisionLogsQuery, RevisionLogLine, RevisionLogs } from '../../../../generated/control-plane/types.gen.ts';

type Level = NonNullable<RevisionLogLine['level']>;

/** Most bytes a deployment's server log (and a listener's revision log) keeps: older lines go past it. */
export const LOG_CAP_BYTES = 10 * 1024 * 1024;
export type LogRequest = Omit<ListRevisionLogsQuery, 'type'>;

// pino's numeric levels, as the agent server's own log lines carry them
const PINO_LEVELS: [number, Level][] = [
  [60, 'CRITICAL'],
  [50, 'ERROR'],
  [40, 'WARNING'],
  [30, 'INFO'],
  [0, 'DEBUG'],
];
const NAMED_LEVELS: Record<string, Level> = {
  trace: 'DEBUG',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARNING',
  warning: 'WARNING',
  error: 'ERROR',
  fatal: 'CRITICAL',
  critical: 'CRITICAL',
};

function levelOf(value: unknown): Level | null {
  if (typeof value === 'number') return PINO_LEVELS.find(([min]) => value >= min)![1];
  if (typeof value === 'string') return NAMED_LEVELS[value.toLowerCase()] ?? null;
  return null;
}

function timeOf(value: unknown): string | null {
  if (typeof value !== 'number' && typeof value !== 'string') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** One line of a log file as a log line: JSON lines keep their time, level and message. */
export function parseLogLine(text: string): RevisionLogLine {
  if (text.startsWith('{')) {
    try {
      const record = JSON.parse(text) as Record<string, unknown>;
      const message = record.msg ?? record.message ?? record.m;
      if (typeof message === 'string') {
        // the agent server's structured fields (run ids, errors) stay visible after the message
        const extra = Object.entries(record).filter(([k]) => !['msg', 'message', 'm', 'time', 't', 'level', 'l', 'pid', 'hostname'].includes(k));
        const suffix = extra.length ? ` ${JSON.stringify(Object.fromEntries(extra))}` : '';
        return { timestamp: timeOf(record.time ?? record.t), level: levelOf(record.level ?? record.l), message: message + suffix };
      }
    } catch {
      // not JSON after all: a plain line
    }
  }
  return { timestamp: null, level: null, message: text };
}

/** A log file's text as log lines. */
export function logLinesOf(text: string): RevisionLogLine[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map(parseLogLine);
}

/**
 * One page of `lines`. Ascending, the cursor is the first line number to read; descending,
 * the line number to read below. `complete` says no line will be added any more.
 */
export function pageOfLog(lines: RevisionLogLine[], request: LogRequest, complete: boolean): RevisionLogs {
  const limit = request.limit ?? 50;
  const needle = request.query?.toLowerCase();
  const matches = (line: RevisionLogLine) => (!needle || line.message.toLowerCase().includes(needle)) && (!request.level || line.level === request.level);
  const logs: RevisionLogLine[] = [];
  if (request.order === 'desc') {
    let at = Math.min(request.offset === undefined ? lines.length : Number(request.offset), lines.length);
    while (at > 0 && logs.length < limit) {
      at -= 1;
      if (matches(lines[at])) logs.push(lines[at]);
    }
    return { logs, next_offset: at > 0 ? String(at) : null };
  }
  let at = request.offset === undefined ? 0 : Number(request.offset);
  // a cursor past the end means the file was cut back to its size cap: start again from its top
  if (at > lines.length) at = 0;
  while (at < lines.length && logs.length < limit) {
    if (matches(lines[at])) logs.push(lines[at]);
    at += 1;
  }
  return { logs, next_offset: complete && at >= lines.length ? null : String(at) };
}
