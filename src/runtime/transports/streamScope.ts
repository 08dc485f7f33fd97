// Which events an ordered stream sends, said by the stream itself (a thread's protocol events:
// the handler knows its subscription's filter; the transport does not, and imports no domain
// code). A writer that serves several streams on one connection, and must send each event once
// however many of them let it through (the protocol WebSocket, sentOnce.ts), can then remember
// how far each stream has gone instead of every event it has sent.

/**
 * A stream's events are the events numbered (their id, an integer) after `since` that `lets`
 * passes, every one of them, in increasing order.
 */
export interface StreamScope<T> {
  since: number;
  lets(event: T): boolean;
}

/** A stream that says its scope. */
export type ScopedStream<T> = AsyncIterable<T> & { scope: StreamScope<T> };

/** The scope the stream says, if it says one. */
export function scopeOf<T>(stream: AsyncIterable<T>): StreamScope<T> | undefined {
  return (stream as Partial<ScopedStream<T>>).scope;
}
