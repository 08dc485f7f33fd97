// A revision's log files, as the targets on this machine keep them: written as JSON lines,
// read back as pages (domain/control-plane/deployer/revisionLogs.ts: how lines are read and
// paged), and kept under a size cap while another process appends.
import fs from 'node:fs';
import path from 'node:path';
import type { RevisionLogLine, RevisionLogs } from '../../../generated/control-plane/types.gen.ts';
import { logLinesOf, pageOfLog, type LogRequest } from '../../domain/control-plane/deployer/revisionLogs.ts';

type Level = NonNullable<RevisionLogLine['level']>;

/** Appends JSON log lines (the target's own build log). */
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
