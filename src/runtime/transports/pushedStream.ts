// A stream of events its writer can be handed in batches, pushed, instead of pulling them one
// event (and one promise) at a time (issue 87: a thread's protocol events, the same batch for
// every subscriber at the same place, each subscriber's batch one write of the same bytes).
// A stream that can be pushed is still an async iterable: a writer that cannot take batches
// pulls it as any other.

export interface BatchSink<T> {
  /**
   * Takes the next events, in order; false when the connection holds more unsent than it should
   * (SSE_UNSENT_LIMIT): nothing more is pushed until the writer calls `resume()`.
   */
  deliver(events: readonly T[]): boolean;
  /** The stream failed: nothing more comes. */
  fail(err: unknown): void;
}

export interface PushedStream {
  /** The connection took what was sent: push on from where it stopped. */
  resume(): void;
  /** The writer is done with it (the client went, the server ends the stream). */
  close(): void;
}

export interface PushableStream<T> extends AsyncIterable<T> {
  push(sink: BatchSink<T>): PushedStream;
}

export function isPushable<T>(stream: AsyncIterable<T>): stream is PushableStream<T> {
  return typeof (stream as Partial<PushableStream<T>>).push === 'function';
}
