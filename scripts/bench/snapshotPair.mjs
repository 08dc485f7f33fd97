// Loaded into a server with `node --import` (fanoutSurvivors.ts): on SIGUSR2 the main thread writes
// a heap snapshot (first.heapsnapshot) to $BENCH_SNAPSHOT_DIR, lets the loop run
// $BENCH_SNAPSHOT_GAP_MS (default 1,000) and writes a second (second.heapsnapshot), then
// pair.json: the gap's wall time, the protocol commands (`POST …/commands`: the fan-out's run.start)
// the server read in it, and each scavenge in it with the bytes it copied (loopGaps.mjs's count), so
// the objects new in the second can be set beside what the scavenges copied meanwhile, per run.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { GCProfiler, writeHeapSnapshot } from 'node:v8';
import { scavengeCopied } from './loopGaps.mjs';

const dir = process.env.BENCH_SNAPSHOT_DIR;
const gapMs = Number(process.env.BENCH_SNAPSHOT_GAP_MS ?? 1000);

if (isMainThread && dir) {
  let counting = false;
  let commands = 0;
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, ...args) {
    if (counting && event === 'request' && args[0].method === 'POST' && args[0].url.endsWith('/commands')) commands += 1;
    return emit.call(this, event, ...args);
  };
  process.on('SIGUSR2', () => {
    writeHeapSnapshot(path.join(dir, 'first.heapsnapshot'));
    const profiler = new GCProfiler();
    profiler.start();
    const from = performance.now();
    counting = true;
    setTimeout(() => {
      counting = false;
      const { statistics } = profiler.stop();
      const wallMs = performance.now() - from;
      writeHeapSnapshot(path.join(dir, 'second.heapsnapshot'));
      const copied = statistics.map(scavengeCopied).filter((bytes) => bytes !== undefined);
      const others = statistics.filter((s) => s.gcType !== 'Scavenge').map((s) => s.gcType);
      fs.writeFileSync(path.join(dir, 'pair.json'), JSON.stringify({ wallMs, commands, copied, others }));
    }, gapMs);
  });
}
