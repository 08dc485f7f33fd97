// Structured logs: one JSON object per line on stdout, so they can be shipped as they are.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
export type LogLevel = keyof typeof LEVELS;

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
  enabled(level: LogLevel): boolean;
}

export function createLogger(
  level: LogLevel = 'info',
  base: Record<string, unknown> = {},
  write: (line: string) => void = (l) => process.stdout.write(l),
): Logger {
  const threshold = LEVELS[level] ?? LEVELS.info;
  const emit = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[lvl] < threshold) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }, errorReplacer) + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
    enabled: (lvl) => LEVELS[lvl] >= threshold,
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
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
export async function logWriter(env: Record<string, string | undefined> = process.env, out: LogOutput = process.stdout): Promise<(line: string) => void> {
  const pretty = env.LOG_FORMAT === 'pretty' || (out.isTTY === true && env.LOG_FORMAT !== 'json');
  if (!pretty) return (line) => void out.write(line);
  const { prettyFactory } = (await import('pino-pretty')) as unknown as { prettyFactory: (options: Record<string, unknown>) => (line: string) => string };
  const format = prettyFactory({ colorize: out.isTTY === true, messageKey: 'msg', timestampKey: 'time', translateTime: 'SYS:HH:MM:ss.l', levelKey: 'level' });
  return (line) => void out.write(format(line));
}
