// How long work held this process's event loop, by CPU time: the main thread's time on the CPU
// between two turns of a 1-ms timer, read from /proc (Linux; none elsewhere). A request that
// arrives while the loop is held waits for the rest of that stretch, so the tail of these is
// what another tenant's request waits behind on the CPU (issue 83, the flood rig), whatever the
// machine's other work took from the thread meanwhile: on a shared machine, wall-clock gaps
// are mostly time spent waiting for a core.
import fs from 'node:fs';

export interface LoopHolds {
  /** Stops the timer: the CPU ms the loop ran between each two of its turns. */
  stop(): number[];
}

export function recordLoopHolds(): LoopHolds {
  const file = `/proc/${process.pid}/task/${process.pid}/schedstat`;
  const ranMs = () => {
    try {
      return Number(fs.readFileSync(file, 'latin1').split(' ', 1)[0]) / 1e6;
    } catch {
      return NaN;
    }
  };
  const held: number[] = [];
  let last = ranMs();
  const timer = setInterval(() => {
    const now = ranMs();
    if (!Number.isNaN(now)) held.push(now - last);
    // read again: the timer's own read is not the next stretch's work
    last = ranMs();
  }, 1);
  return {
    stop() {
      clearInterval(timer);
      return held;
    },
  };
}
