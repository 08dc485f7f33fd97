// Loaded into a server under measurement with `node --import` (fanoutAllocations.ts): each SIGUSR2
// starts, then stops, V8's sampling heap profiler on the main thread (every allocation, those the
// next scavenge or mark-compact collects included), and the stopped profile is written as JSON to
// $BENCH_ALLOC_OUT.<n> (n = 1, 2, …) with the collections made while it sampled, by kind.
// BENCH_ALLOC_SURVIVORS=1: only what no scavenge collected — what the scavenges copied and then
// promoted (a mark-compact may have freed it since), or what is alive in the young generation —
// and the stop waits for the next scavenge, so that the young garbage made since the last one is
// not counted as alive (what was allocated between that scavenge and its entry's callback is).
import fs from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const out = process.env.BENCH_ALLOC_OUT;
const survivors = process.env.BENCH_ALLOC_SURVIVORS === '1';
if (isMainThread && out) {
  const session = new Session();
  session.connect();
  let sampling = false;
  let stopAtScavenge = false;
  let written = 0;
  let gcs = {};
  const stop = () => {
    sampling = false;
    stopAtScavenge = false;
    const taken = gcs;
    session.post('HeapProfiler.stopSampling', (error, result) => {
      written += 1;
      fs.writeFileSync(`${out}.${written}`, JSON.stringify(error ? { error: String(error) } : { gcs: taken, profile: result.profile }));
    });
  };
  new PerformanceObserver((list) => {
    if (!sampling) return;
    let scavenged = false;
    for (const e of list.getEntries()) {
      const kind = e.detail?.kind ?? 0;
      gcs[kind] = (gcs[kind] ?? 0) + 1;
      scavenged ||= kind === constants.NODE_PERFORMANCE_GC_MINOR;
    }
    if (stopAtScavenge && scavenged) stop();
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      gcs = {};
      session.post('HeapProfiler.startSampling', {
        samplingInterval: Number(process.env.BENCH_ALLOC_INTERVAL ?? 4096),
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: !survivors,
      });
      return;
    }
    if (survivors) stopAtScavenge = true;
    else stop();
  });
}
