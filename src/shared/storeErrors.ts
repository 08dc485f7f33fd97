// What the stores throw when they cannot do what was asked. The store knows no HTTP:
// src/runtime/errors.ts maps these to statuses (507, 503, 500) with a detail a person can act on.

/** Why a write was refused. Nothing of a refused write is stored, in memory or on disk. */
export type StoreWriteFailure =
  /** The data directory's disk (or the user's quota) is full: ENOSPC, EDQUOT, EFBIG. */
  | 'no_space'
  /**
   * Any other I/O error writing the journal (EIO, EROFS, fsync failing…), or a database that
   * cannot be reached (restarting, down, connection lost): retrying later can succeed.
   */
  | 'unavailable'
  /** The value cannot be written as JSON and read back (a cycle, a BigInt, nested too deep). */
  | 'unserialisable';

export class StoreWriteError extends Error {
  constructor(
    readonly failure: StoreWriteFailure,
    message: string,
    /** The errno code behind it (ENOSPC, EIO…), when there is one. */
    readonly code?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'StoreWriteError';
  }
}

/** The `unavailable` refusal, named apart so it is recognised where only its name travels (a run worker's errors). */
export class StoreUnavailableError extends StoreWriteError {
  constructor(message: string, code?: string, options?: { cause?: unknown }) {
    super('unavailable', message, code, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Whether `err`, or an error that caused it, is the store being unavailable. By name, as an
 * error raised by the store for a graph in a run worker comes back as a plain Error.
 */
export function isStoreUnavailable(err: unknown): boolean {
  for (let at = err, depth = 0; at instanceof Error && depth < 10; at = at.cause, depth += 1) {
    if (at.name === 'StoreUnavailableError') return true;
  }
  return false;
}

/** The data directory cannot be opened as it is (damaged files); names the file and the way out. */
export class StoreDamagedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreDamagedError';
  }
}

/** Another live process holds the data directory. */
export class StoreLockedError extends Error {
  constructor(
    message: string,
    readonly pid: number,
  ) {
    super(message);
    this.name = 'StoreLockedError';
  }
}

const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** A journal I/O error as the StoreWriteError a request gets. */
export function ioWriteError(err: unknown, file: string): StoreWriteError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? 'EIO';
  const reason = err instanceof Error ? err.message : String(err);
  if (NO_SPACE.has(code)) {
    return new StoreWriteError(
      'no_space',
      `Insufficient storage: no space left on the data directory's disk (${code} appending to ${file}); nothing was stored. Free space there and retry.`,
      code,
      { cause: err },
    );
  }
  return new StoreUnavailableError(
    `The store cannot write to the data directory (${reason}, appending to ${file}); nothing was stored. Retry later; the server log says more.`,
    code,
    { cause: err },
  );
}
