// `npx tsx scripts/bench/runSlots.ts [pairs] [slots,slots]` (issue 86): the 100-thread runs by the
// number of run slots (AGENTPLANE_MAX_CONCURRENT_RUNS, default 10 as upstream's N_JOBS_PER_WORKER).
// Each way a fresh server of this tree's dist (embedded store, default run workers) in alternating
// pairs (the order flipped every pair): the fresh phase's warm-up (freshPeer.ts's), 200 runs on one
// thread, then the timed 1,000 runs over 100 threads through the bench's own client (runs.ts).
// Prints each server's runs/s with the load at its end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAgentplane } from './agentplane.ts';
import { enqueueAndDrain } from './runs.ts';
import { FRESH_ONE_THREAD_RUNS, FRESH_RUNS_PER_THREAD, FRESH_THREADS, FRESH_WARM_UP } from './freshPeer.ts';
import { SHARED_GRAPH } from './figures.ts';

const pairs = Number(process.argv[2] ?? 3);
const ways = (process.argv[3] ?? '10,32').split(',');
for (let pair = 0; pair < pairs; pair++) {
  for (const slots of pair % 2 ? [...ways].reverse() : ways) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'run-slots-'));
    const ap = await startAgentplane({ dataDir: path.join(dir, 'data'), workDir: dir, env: { AGENTPLANE_MAX_CONCURRENT_RUNS: slots } });
    const target = { server: 'agentplane' as const, url: ap.url, headers: ap.headers, assistant: SHARED_GRAPH };
    try {
      for (const [threads, perThread] of FRESH_WARM_UP) await enqueueAndDrain(target, threads, perThread);
      await enqueueAndDrain(target, 1, FRESH_ONE_THREAD_RUNS);
      const r = await enqueueAndDrain(target, FRESH_THREADS, FRESH_RUNS_PER_THREAD);
      console.log(
        `pair ${pair + 1}, ${slots} slots: ${(r.runs / r.seconds).toFixed(1)} runs/s (not success: ${r.failed}), load ${os.loadavg()[0]!.toFixed(1)}`,
      );
    } finally {
      await ap.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
}
