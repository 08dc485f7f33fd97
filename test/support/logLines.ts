// The server's log as a test reads it: each line parsed as JSON and read by its fields, never by
// the order or spelling of its text (pino writes `msg` after the fields). Lines that are not a
// JSON object (a banner on a shared output, a line still being written) are left out.

/** One log line: `level`, `time`, `msg` and the line's own fields. */
export type LogLine = Record<string, any>;

/** The complete JSON lines of `output`, in order. */
export function logLines(output: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const text of output.split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      const line: unknown = JSON.parse(text);
      if (typeof line === 'object' && line !== null && !Array.isArray(line)) lines.push(line as LogLine);
    } catch {
      // not a whole JSON line
    }
  }
  return lines;
}

/** The first line of `output` saying `msg` (and matching `where`, if given). */
export function logLine(output: string, msg: string, where: (line: LogLine) => boolean = () => true): LogLine | undefined {
  return logLines(output).find((line) => line.msg === msg && where(line));
}
