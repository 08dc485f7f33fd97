// The CPU each kind of this process's threads spent over a stretch, from /proc/self/task/*/stat:
// the main thread (the request loop), the threads at a lower priority than it (the run workers
// lower their own: schedulingPriority.ts) and the rest (V8's platform threads — its GC helpers
// and background compilers, for every isolate — libuv's pool, a loader's hooks thread). What
// besides the request loop wanted a core while B read (issue 83). Empty where /proc is not.
import fs from 'node:fs';
import os from 'node:os';

export interface ThreadCpu {
  main: number;
  lowered: number;
  others: number;
}

const TICK_MS = 1000 / 100; // USER_HZ, 100 on Linux

/** Each thread of a process (this one by default) with its CPU ticks so far and its niceness. */
export function threadTicks(pid: number | 'self' = 'self'): Map<number, { ticks: number; nice: number }> {
  const threads = new Map<number, { ticks: number; nice: number }>();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // fields from the third of stat(5): utime 14, stime 15, nice 19
      threads.set(Number(tid), { ticks: Number(fields[11]) + Number(fields[12]), nice: Number(fields[16]) });
    } catch {
      // the thread ended in between
    }
  }
  return threads;
}

/** Starts a stretch; `stop()` says each kind's CPU ms in it. */
export function recordThreadCpu(): { stop(): ThreadCpu } {
  const before = threadTicks();
  const ownNice = os.getPriority(0);
  return {
    stop() {
      const out: ThreadCpu = { main: 0, lowered: 0, others: 0 };
      for (const [tid, { ticks, nice }] of threadTicks()) {
        const ms = (ticks - (before.get(tid)?.ticks ?? 0)) * TICK_MS;
        if (tid === process.pid) out.main += ms;
        else if (nice > ownNice) out.lowered += ms;
        else out.others += ms;
      }
      return out;
    },
  };
}

/**
 * Sets every thread of this process but the main one to `nice` (Linux: a TID given to
 * setpriority names that thread alone) and reads each back from its stat: the TIDs it holds for.
 */
export function lowerOtherThreads(nice: number): number[] {
  const lowered: number[] = [];
  for (const tid of threadTicks().keys()) {
    if (tid === process.pid) continue;
    try {
      os.setPriority(tid, nice);
    } catch {
      continue;
    }
    if (threadTicks().get(tid)?.nice === nice) lowered.push(tid);
  }
  return lowered;
}
