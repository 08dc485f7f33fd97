// Blocks the calling thread (main or worker) for `ms` without spending CPU: Atomics.wait on
// a value nothing changes. To its event loop, its timers and whoever waits on its messages
// this is a thread that computes without yielding, as a busy loop is, but the cores stay
// free for the rest of the suite (a busy loop of a few seconds was CPU the whole run paid).
export function blockThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
