// Loaded into a server under measurement with `node --import` (fanoutAllocations.ts): each SIGUSR2
// starts, then stops, V8's sampling heap profiler on the main thread (every allocation, those the
// next scavenge or mark-compact collects included), and the stopped profile is written as JSON to
// $BENCH_ALLOC_OUT.<n> (n = 1, 2, …) with the collections made while it sampled, by kind.
import fs from 'node:fs';
import { Session } from 'node:inspector';
import { isMainThread } from 'node:worker_threads';
import { PerformanceObserver } from 'node:perf_hooks';

const out = process.env.BENCH_ALLOC_OUT;
if (isMainThread && out) {
  const session = new Session();
  session.connect();
  let sampling = false;
  let written = 0;
  let gcs = {};
  new PerformanceObserver((list) => {
    if (!sampling) return;
    for (const e of list.getEntries()) {
      const kind = e.detail?.kind ?? 0;
      gcs[kind] = (gcs[kind] ?? 0) + 1;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      gcs = {};
      session.post('HeapProfiler.startSampling', {
        samplingInterval: Number(process.env.BENCH_ALLOC_INTERVAL ?? 4096),
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      return;
    }
    sampling = false;
    const taken = gcs;
    session.post('HeapProfiler.stopSampling', (error, result) => {
      written += 1;
      fs.writeFileSync(`${out}.${written}`, JSON.stringify(error ? { error: String(error) } : { gcs: taken, profile: result.profile }));
    });
  });
}
