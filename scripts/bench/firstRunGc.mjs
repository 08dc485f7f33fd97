// Preloaded into a server by firstRun.ts's FIRST_RUN_GC=1: every thread of the process (the main
// thread and each worker, which inherit the preload) writes one line for each of V8's collections
// to the process's stderr, synchronously so the worker's lines are not held behind the main
// thread's: when it began (ms since the epoch, to set beside the bench's run windows), how long it
// took, scavenge or full, whether a call asked for it (gc(): the worker's own idle and warm-up
// collections) and the young generation's capacity just after (V8 shrinks it on a collection
// after an idle stretch, when the allocation rate it measures is low, and grows it again only
// once enough has survived scavenges).
import fs from 'node:fs';
import v8 from 'node:v8';
import { PerformanceObserver, constants, performance } from 'node:perf_hooks';
import { threadId } from 'node:worker_threads';

const KINDS = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'full' };

function newSpaceMb() {
  const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space ? Math.round((space.space_size / 1024 / 1024) * 10) / 10 : NaN;
}

const observer = new PerformanceObserver((list) => {
  const young = newSpaceMb();
  for (const entry of list.getEntries()) {
    const line = {
      thread: threadId,
      at: performance.timeOrigin + entry.startTime,
      ms: Math.round(entry.duration * 100) / 100,
      kind: KINDS[entry.detail?.kind] ?? `kind ${entry.detail?.kind}`,
      forced: Boolean((entry.detail?.flags ?? 0) & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED),
      newSpaceMb: young,
    };
    fs.writeSync(2, `@@gc ${JSON.stringify(line)}\n`);
  }
});
observer.observe({ entryTypes: ['gc'] });
