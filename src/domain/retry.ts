// Background work that must finish (a deployment's next status, the end of a run) is retried
// after a failure, with doubling waits, until it succeeds or its owner stops. A transient
// error — a full disk, a lost database connection — then delays the work instead of leaving
// it stuck; what is still unfinished when the owner stops is picked up by recovery on start.
// Written here rather than taken from a library: it is one loop, and it must stop on the
// owner's abort signal mid-wait, which is all it needs.

export interface RetryOptions {
  /** Aborted when the owner stops: no further attempt is made, the last error is thrown. */
  signal: AbortSignal;
  /** Wait before the second attempt; each later wait doubles, up to `maxDelayMs`. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** Errors that another attempt cannot fix (a cancelled job): thrown at once. */
  isFinal?: (err: unknown) => boolean;
  /** Told of every failed attempt, before the wait. */
  onFailure: (err: unknown, attempt: number, retryInMs: number) => void;
}

export async function retryUntilDone<T>(step: () => Promise<T>, options: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (err) {
      if (options.isFinal?.(err) || options.signal.aborted) throw err;
      const wait = Math.min(options.maxDelayMs, options.firstDelayMs * 2 ** (attempt - 1));
      options.onFailure(err, attempt, wait);
      await sleep(wait, options.signal);
      if (options.signal.aborted) throw err;
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
