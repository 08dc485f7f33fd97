// A run worker gives way to the request loop: the worker lowers its own thread's scheduling
// priority (niceness), so behind a backlog of CPU-bound runs the kernel still hands the main
// thread a core as soon as it has a request to answer. On Linux a priority is per thread and
// `os.setPriority(0, …)` sets the calling thread's; elsewhere it would lower the whole
// process, the request loop included, so it is left alone there.
import os from 'node:os';

/** How much lower than the server's own (Unix niceness; the request loop keeps its own). */
export const RUN_WORKER_NICENESS = 10;

/** Lowers the calling thread's priority; false when the platform or the process does not allow it. */
export function yieldToRequestLoop(platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return false;
  try {
    os.setPriority(0, Math.min(19, os.getPriority(0) + RUN_WORKER_NICENESS));
    return true;
  } catch {
    // a sandbox may forbid setpriority: runs then compete as equals, as before
    return false;
  }
}
