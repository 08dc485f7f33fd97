// What a server that already answered does when it learns it should not have started: a graph
// the start took as loading (its check remembered, shared/graphCheckRecord.ts) fails when this
// thread loads it after the first 200. `agentplane serve` sets the handler (it stops the server
// and exits 1 with the message a refused start gives); without one the error is only thrown to
// the reads that needed the graphs.
type Handler = (err: Error) => void;

let handler: Handler | undefined;

/** The process's answer to a late refusal (serve's: stop, then exit 1). */
export function onLateRefusal(handle: Handler | undefined): void {
  handler = handle;
}

/** Tells the process it must not go on serving; false where nothing handles it. */
export function refuseLate(err: Error): boolean {
  if (!handler) return false;
  handler(err);
  return true;
}
