// Loaded into a server under measurement with `node --import` (runsAloneProbe.ts): on the main
// thread, the event loop's delay (perf_hooks, 1 ms resolution) and every garbage collection
// (kind, duration), written as JSON to `$BENCH_LOOP_OUT.<n>.json` at each SIGUSR2, then
// started afresh, so the driver brackets the stretch it measures with two signals. The delay's
// tail is what a request arriving at a random moment waits for; the collections say how much
// of it is the collector's.
import fs from 'node:fs';
import { isMainThread } from 'node:worker_threads';
import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';

const out = process.env.BENCH_LOOP_OUT;
if (isMainThread && out) {
  const kinds = {
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let gcs = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([e.startTime, Math.round(e.duration * 1000) / 1000, kinds[e.detail?.kind] ?? String(e.detail?.kind)]);
  }).observe({ entryTypes: ['gc'] });
  // The main thread's CPU time between two turns of a 1-ms timer: how long the loop was held by
  // work, whatever the machine's other processes did meanwhile (a wall-clock delay counts the
  // time the thread waited for a core too). Its schedstat's first field, ns on the CPU.
  // Each long gap (≥ 5 ms of wall clock between two turns) is split by the same file into the
  // time on the CPU, the time waiting on the run queue for a core (its second field), and the
  // rest, blocked (a collection's wait for its helper threads, a synchronous file write).
  const schedstat = `/proc/${process.pid}/task/${process.pid}/schedstat`;
  const stat = () => {
    const [cpu, queued] = fs.readFileSync(schedstat, 'latin1').split(' ', 2);
    return [Number(cpu), Number(queued), Number(process.hrtime.bigint())];
  };
  let held = [];
  let gaps = [];
  let last = stat();
  setInterval(() => {
    const now = stat();
    held.push(now[0] - last[0]);
    const wall = now[2] - last[2];
    if (wall >= 5e6) gaps.push([wall, now[0] - last[0], now[1] - last[1], performance.now()]);
    last = stat();
  }, 1).unref();
  let n = 0;
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const figure = {
      at: Math.round(performance.now()),
      // µs on the monotonic clock a --cpu-prof profile's startTime is on: the stretch's end within it
      monoUs: Number(process.hrtime.bigint() / 1000n),
      delay: {
        count: delay.count,
        p50: ms(delay.percentile(50)),
        p90: ms(delay.percentile(90)),
        p99: ms(delay.percentile(99)),
        p999: ms(delay.percentile(99.9)),
        max: ms(delay.max),
        mean: ms(delay.mean),
      },
      gcs,
      held: heldFigure(held),
      gaps: gapFigure(gaps),
    };
    fs.writeFileSync(`${out}.${n}.json`, JSON.stringify(figure));
    n += 1;
    delay.disable();
    delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    gcs = [];
    held = [];
    gaps = [];
  });
  /** The long gaps' wall time split into on the CPU, waiting for a core, and blocked; with the share of it a collection overlapped. */
  const gapFigure = (list) => {
    const sum = (i) => Math.round(list.reduce((a, g) => a + g[i], 0) / 1e6);
    const wall = sum(0);
    const cpu = sum(1);
    const queued = sum(2);
    const longest = [...list]
      .sort((a, b) => b[0] - a[0])
      .slice(0, 8)
      .map((g) => g.slice(0, 3).map((x) => Math.round(x / 1e5) / 10));
    // the collections' wall time inside the gaps (their entries' start and duration, ms on performance.now())
    let inGc = 0;
    for (const [ns, , , endMs] of list) {
      const from = endMs - ns / 1e6;
      for (const [start, duration] of gcs) inGc += Math.max(0, Math.min(endMs, start + duration) - Math.max(from, start));
    }
    return { count: list.length, wallMs: wall, cpuMs: cpu, queuedMs: queued, blockedMs: wall - cpu - queued, gcMs: Math.round(inGc), longest };
  };
  /** The CPU-held stretches' percentiles and the time in stretches of at least 5 and 10 ms, ms. */
  const heldFigure = (ns) => {
    const sorted = [...ns].sort((a, b) => a - b);
    const at = (q) => Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0) / 1e4) / 100;
    const over = (ms) => Math.round(ns.filter((x) => x >= ms * 1e6).reduce((a, b) => a + b, 0) / 1e6);
    return {
      count: ns.length,
      p50: at(0.5),
      p99: at(0.99),
      p999: at(0.999),
      max: at(1),
      msInOver5: over(5),
      msInOver10: over(10),
      total: Math.round(ns.reduce((a, b) => a + b, 0) / 1e6),
    };
  };
}
