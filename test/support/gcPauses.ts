// The main thread's garbage collections, on the monotonic clock the flood rig's reads are timed
// by (process.hrtime, shared by every process on the machine), so a read of B's can be matched
// with the pauses that happened while it waited (issue 83: is B's tail under A's flood the
// young generation's scavenges?).
import { PerformanceObserver, constants } from 'node:perf_hooks';

export interface GcPause {
  /** µs of process.hrtime at the pause's start, and at its end. */
  from: number;
  to: number;
  /** A young-generation collection (scavenge), else a full one. */
  minor: boolean;
}

export interface GcTally {
  minor: number;
  minorMs: number;
  maxMinorMs: number;
  major: number;
  majorMs: number;
}

export interface GcPauses {
  /** The pauses that overlap [from, to] (µs of process.hrtime). */
  within(from: number, to: number): GcPause[];
  tally(from: number, to: number): GcTally;
  stop(): void;
}

export function recordGcPauses(): GcPauses {
  // performance.now() and process.hrtime are both monotonic: one offset turns the one into the other
  const offsetUs = Number(process.hrtime.bigint() / 1000n) - performance.now() * 1000;
  const pauses: GcPause[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const from = offsetUs + entry.startTime * 1000;
      const kind = (entry.detail as { kind?: number } | undefined)?.kind;
      pauses.push({ from, to: from + entry.duration * 1000, minor: kind === constants.NODE_PERFORMANCE_GC_MINOR });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const within = (from: number, to: number) => pauses.filter((p) => p.to >= from && p.from <= to);
  return {
    within,
    tally(from, to) {
      const tally: GcTally = { minor: 0, minorMs: 0, maxMinorMs: 0, major: 0, majorMs: 0 };
      for (const p of within(from, to)) {
        const ms = (p.to - p.from) / 1000;
        if (p.minor) {
          tally.minor++;
          tally.minorMs += ms;
          tally.maxMinorMs = Math.max(tally.maxMinorMs, ms);
        } else {
          tally.major++;
          tally.majorMs += ms;
        }
      }
      return tally;
    },
    stop: () => observer.disconnect(),
  };
}
