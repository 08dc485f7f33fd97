// Ends an AbortController without making an Error for it. `abort()` with no reason makes a new
// DOMException each time, and an Error captures its stack when made: tens of µs under a server's
// deep stacks. When a thousand subscribers go at once (a proxy restarted, a client process gone),
// each one's stream and subscription aborts made one or two, and that close held the main
// thread's loop for ~100 ms of CPU in one turn (issue 87; fanoutGaps.ts). Every such abort is
// told by `signal.aborted` and its listeners, never by which reason object it carries; so one
// reason, made once, serves them all (its name is still `AbortError`, as a fetch or stream that
// is handed the signal expects).
const STOPPED = new DOMException('This operation was aborted', 'AbortError');

/** `controller.abort()`, with the one shared AbortError as its reason. */
export function quietAbort(controller: AbortController | undefined): void {
  controller?.abort(STOPPED);
}
