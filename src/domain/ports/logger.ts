// What the domain logs through. The domain owns this port and never imports the runtime's
// logger: the composition root hands it one (src/runtime/logging/logger.ts satisfies it), and a test
// can hand it anything with these four levels.

/** One line at a level: a message a person reads, and fields a machine filters on. */
export type LogLine = (msg: string, fields?: Record<string, unknown>) => void;

export interface Logger {
  debug: LogLine;
  info: LogLine;
  warn: LogLine;
  error: LogLine;
  /**
   * An info line of routine work that comes once a run or more a second on a busy server (a run's
   * end): it may wait with the access lines, as they do, instead of being written at once.
   */
  routine: LogLine;
  /** The same log with `fields` added to every line. */
  child(fields: Record<string, unknown>): Logger;
}
