// `npx tsx scripts/bench/runsCompiles.ts [rounds] [out dir]` (issue 86): how much V8 still compiles
// while the 100-thread runs are timed. One server (this tree's dist, default run workers) runs
// under `--trace-opt`, its standard output (where V8 writes each optimisation, whichever isolate
// made it) in a file; after the fresh phase's warm-up (freshPeer.ts's FRESH_WARM_UP, through the
// bench's own client, runs.ts), each round of 1,000 runs over 100 threads prints its runs/s and the
// TurboFan compiles finished during it: how many, and the milliseconds their three phases took
// (wall time on V8's helper threads, not CPU: a figure to compare rounds by, at the load printed).
// A fresh server's first timed round compiling far more than its later ones says the figure the
// fresh phase judges still pays for compiling its code.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAgentplane } from './agentplane.ts';
import { enqueueAndDrain } from './runs.ts';
import { FRESH_RUNS_PER_THREAD, FRESH_THREADS, FRESH_WARM_UP } from './freshPeer.ts';
import { SHARED_GRAPH } from './figures.ts';

const rounds = Number(process.argv[2] ?? 4);
const dir = fs.mkdtempSync(path.join(process.argv[3] ?? os.tmpdir(), 'runs-compiles-'));
const trace = path.join(dir, 'trace-opt.log');

/** TurboFan compiles finished in the trace so far: their count and the sum of their phases' milliseconds. */
function compiles(): { count: number; ms: number } {
  let count = 0;
  let ms = 0;
  for (const line of fs.readFileSync(trace, 'utf8').split('\n')) {
    const took = /^\[completed compiling .* took ([\d.]+), ([\d.]+), ([\d.]+) ms\]/.exec(line);
    if (!took) continue;
    count += 1;
    ms += Number(took[1]) + Number(took[2]) + Number(took[3]);
  }
  return { count, ms };
}

const ap = await startAgentplane({
  dataDir: path.join(dir, 'data'),
  workDir: dir,
  nodeArgs: ['--trace-opt'],
  // node's standard output to the file: V8 writes its trace there, not through the process's streams
  wrapper: { command: 'bash', args: ['-c', `exec "$0" "$@" > '${trace}'`], startTimeoutMs: 60_000 },
});
const target = { server: 'agentplane' as const, url: ap.url, headers: ap.headers, assistant: SHARED_GRAPH };
try {
  for (const [threads, perThread] of FRESH_WARM_UP) await enqueueAndDrain(target, threads, perThread);
  let before = compiles();
  console.log(`start and warm-up: ${before.count} compiles (${Math.round(before.ms)} ms)`);
  for (let round = 1; round <= rounds; round++) {
    const r = await enqueueAndDrain(target, FRESH_THREADS, FRESH_RUNS_PER_THREAD);
    const now = compiles();
    const load = os.loadavg()[0]!.toFixed(1);
    console.log(
      `round ${round}: ${(r.runs / r.seconds).toFixed(1)} runs/s (not success: ${r.failed}), ${now.count - before.count} compiles (${Math.round(now.ms - before.ms)} ms), load ${load}`,
    );
    before = now;
  }
} finally {
  await ap.stop();
  fs.rmSync(path.join(dir, 'data'), { recursive: true, force: true });
}
