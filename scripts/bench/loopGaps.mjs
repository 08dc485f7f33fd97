// Loaded into a server under measurement with `node --import` (fanoutGaps.ts): on the main thread,
// every turn of the event loop that took long — the wall time between two turns of a 1-ms timer
// of at least BENCH_GAPS_MIN_MS (default 30), or whose CPU was at least 6 ms — with its CPU time
// and its time waiting for a core (the thread's schedstat), on the monotonic clock in µs (a
// --cpu-prof profile's clock, so the driver can name what ran in it); every garbage collection;
// and each `GET /ok` the server answered: when its loop read the request and when the answer was
// finished (okSamples.ts sets those beside the client's samples).
// A request waits for the turn it arrives in: a turn long in CPU is our work holding the loop, one
// long in waiting is the machine's other threads, the rest (blocked) a collection waiting for its
// helper threads or a synchronous system call. Written as JSON to $BENCH_GAPS_OUT every 15 s and at exit
// (with BENCH_GAPS_SERVER=1, so the driving process can load it for `recordLoop` alone).
// On the server, each scavenge's bytes copied (what survived it in the young generation plus what
// it promoted: V8's GCProfiler, read at the collection's entry): a count that does not depend on
// the machine's load, for A/B of what the main thread keeps alive (issue 87).
// `recordLoop` is the same recorder for the driving process's own loop (fanoutGaps.ts).
import fs from 'node:fs';
import http from 'node:http';
import { isMainThread } from 'node:worker_threads';
import { PerformanceObserver } from 'node:perf_hooks';
import { GCProfiler } from 'node:v8';

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

const OLD_SPACES = ['old_space', 'code_space', 'large_object_space', 'code_large_object_space'];
const used = (stats, names) => stats.heapSpaceStatistics.reduce((sum, s) => sum + (names.includes(s.spaceName) ? s.spaceUsedSize : 0), 0);

/**
 * The bytes a scavenge copied, from one of GCProfiler's statistics: what is left in the young
 * generation after it (survived, copied within it) and what the old spaces grew by (promoted);
 * undefined for another kind of collection.
 */
export function scavengeCopied(stat) {
  if (stat.gcType !== 'Scavenge') return undefined;
  const promoted = used(stat.afterGC, OLD_SPACES) - used(stat.beforeGC, OLD_SPACES);
  return used(stat.afterGC, ['new_space']) + Math.max(0, promoted);
}

/**
 * A scavenge's parts: [bytes promoted (the old spaces' growth), bytes the young generation held
 * when it began (survivors of the last scavenge and all allocated since)]; undefined for another
 * kind. Copied minus promoted survived within the young generation: it will be copied again.
 */
export function scavengeParts(stat) {
  if (stat.gcType !== 'Scavenge') return undefined;
  const promoted = used(stat.afterGC, OLD_SPACES) - used(stat.beforeGC, OLD_SPACES);
  return [Math.max(0, promoted), used(stat.beforeGC, ['new_space'])];
}

/** Records the calling thread's long turns and collections; `snapshot()` is what was recorded. */
export function recordLoop(minWallUs = 30_000, { copies: withCopies = false } = {}) {
  // read through one descriptor into one buffer: the recorder makes no garbage of its own each ms
  const fd = fs.openSync(`/proc/${fs.readlinkSync('/proc/thread-self')}/schedstat`, 'r');
  const buffer = Buffer.alloc(128);
  const stat = () => {
    const n = fs.readSync(fd, buffer, 0, buffer.length, 0);
    const text = buffer.toString('latin1', 0, n);
    const space = text.indexOf(' ');
    return [Number(text.slice(0, space)), Number(text.slice(space + 1, text.indexOf(' ', space + 1))), nowUs()];
  };
  const gaps = [];
  const gcs = [];
  /** [µs on the monotonic clock when read (just after the collection), bytes copied, of them promoted, young generation before] a scavenge */
  const copies = [];
  let profiler = withCopies ? new GCProfiler() : undefined;
  profiler?.start();
  let turns = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push([Math.round(e.startTime * 1000), Math.round(e.duration * 1000), e.detail?.kind]);
    if (!profiler) return;
    const { statistics } = profiler.stop();
    profiler = new GCProfiler();
    profiler.start();
    const at = nowUs();
    for (const stat of statistics) {
      const copied = scavengeCopied(stat);
      if (copied !== undefined) copies.push([at, copied, ...scavengeParts(stat)]);
    }
  }).observe({ entryTypes: ['gc'] });
  let last = stat();
  setInterval(() => {
    const now = stat();
    turns += 1;
    const cpuUs = Math.round((now[0] - last[0]) / 1000);
    if (now[2] - last[2] >= minWallUs || cpuUs >= 6000) gaps.push([last[2], now[2], cpuUs, Math.round((now[1] - last[1]) / 1000)]);
    last = now;
  }, 1).unref();
  // performance.now()'s origin on the monotonic clock, for the collections' entries
  const originUs = () => nowUs() - Math.round(performance.now() * 1000);
  return { snapshot: () => ({ turns, originUs: originUs(), gaps, gcs, copies }) };
}

const out = process.env.BENCH_GAPS_OUT;
if (isMainThread && out && process.env.BENCH_GAPS_SERVER === '1') {
  const loop = recordLoop(Number(process.env.BENCH_GAPS_MIN_MS ?? 30) * 1000, { copies: true });
  const oks = [];
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    const [req, res] = args;
    if (event === 'request' && req.url === '/ok') {
      const read = nowUs();
      res.once('finish', () => oks.push([read, nowUs()]));
    }
    return emit.call(this, event, ...args);
  };
  const dump = () => fs.writeFileSync(out, JSON.stringify({ ...loop.snapshot(), oks }));
  // rarely: with turns of ≥ 5 ms and every /ok recorded, each dump is a turn of its own
  setInterval(dump, 15_000).unref();
  process.on('exit', dump);
}
