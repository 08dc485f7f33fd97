// A revision's logs: build output written by the deployer as JSON lines, server output as the
// agent server wrote it (its own JSON log lines, or plain text). Reading turns either into
// log lines and pages them; the cursor is a line number in the file.
import fs from 'node:fs';
import path from 'node:path';
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

/** Appends JSON log lines (the deployer's own build log). */
export class LogWriter {
  constructor(readonly file: string) {}

  reset(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(this.file, '', { mode: 0o600 });
  }

  write(message: string, level: Level = 'INFO'): void {
    const line = JSON.stringify({ t: new Date().toISOString(), l: level, m: message });
    fs.appendFileSync(this.file, `${line}\n`, { mode: 0o600 });
  }
}

export function readLogLines(file: string): RevisionLogLine[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return logLinesOf(text);
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

/** Reads a page from a log file; with `wait_ms` and nothing new yet, waits for the file to grow. */
export async function readLogPage(
  file: string,
  request: LogRequest,
  isComplete: () => Promise<boolean>,
  redact: (text: string) => string = (text) => text,
): Promise<RevisionLogs> {
  const deadline = Date.now() + (request.order === 'desc' ? 0 : (request.wait_ms ?? 0));
  for (;;) {
    const complete = await isComplete();
    // masked before the query filter, so a query cannot probe for a secret value
    const lines = readLogLines(file).map((line) => ({ ...line, message: redact(line.message) }));
    const page = pageOfLog(lines, request, complete);
    if (page.logs.length > 0 || complete || Date.now() >= deadline) return page;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now()))));
  }
}

/**
 * Keeps a log file that another process appends to under `capBytes`: past the cap, its newer
 * half is kept in `<file>.1` and the file starts empty (the writer's O_APPEND handle follows).
 */
export function capLogFile(file: string, capBytes: number): void {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return;
  }
  if (size <= capBytes) return;
  const keep = Math.floor(capBytes / 2);
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(keep);
    fs.readSync(fd, buffer, 0, keep, size - keep);
    fs.writeFileSync(`${file}.1`, buffer, { mode: 0o600 });
  } finally {
    fs.closeSync(fd);
  }
  fs.truncateSync(file, 0);
}
