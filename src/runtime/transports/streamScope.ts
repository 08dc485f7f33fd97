// Which events an ordered stream sends, said by the stream itself (a thread's protocol events:
// the handler knows its subscription's filter; the transport does not, and imports no domain
// code). A writer that serves several streams on one connection and must tell which events one
// of them already sent can remember how far each stream has gone instead of every event it sent.
// (The protocol WebSocket did, to send each event once per socket, until it sent them once per
// subscription as upstream does: no writer reads the scope now.)

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
