// `npx tsx scripts/bench/memoryBurst.ts [threads] [runs]`: the memory a server keeps after a
// burst of large runs (issue 67). agentplane starts as the bench starts it, its idle RSS is
// read once its start-up work has settled (settledStart.ts: past its warm-ups), then `runs`
// (default 25) runs of test/fixtures/graphs/large.ts (each appends a ~400 KB message to the
// thread's messages) are run over `threads` threads (default 1), one after another per thread,
// each joined; then RSS is sampled every 5 s for 60 s.
// AGENTPLANE_RUN_WORKERS passes through (0: graphs on the main thread). BURST_ROOT: the tree
// whose bin/agentplane.js runs (a baseline built elsewhere; default this one); BURST_NODE_ARGS:
// flags before it (`--trace-gc`); BURST_OUTPUT: a file the server's own output is written to;
// BURST_LOG_LEVEL: the server's LOG_LEVEL (`debug` logs its run workers' retirements).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, expectStatus, startAgentplane, type Agentplane } from './agentplane.ts';
import { delay } from './proc.ts';
import { BURST_RUNS, BURST_SECONDS, BURST_STEP_S, type BurstFigure } from './burstFigure.ts';
import { IDLE_STEP_MS, waitForSettledStart } from './settledStart.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

export { BURST_RUNS, BURST_SECONDS, BURST_THREADS, type BurstFigure } from './burstFigure.ts';

export const LARGE_GRAPH = 'large';
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

export function largeGraphSpec(): Record<string, string> {
  return { [LARGE_GRAPH]: `${path.join(ROOT, 'test/fixtures/graphs/large.ts')}:graph` };
}

/** Runs the burst on a started server (one with largeGraphSpec() among its graphs). */
export async function measureBurst(ap: Agentplane, threads: number, runs = BURST_RUNS, log = console.log): Promise<BurstFigure> {
  const idleSamples = await waitForSettledStart(() => ap.rss());
  const idleMB = mb(idleSamples.at(-1)!);
  const idleAfterS = ((idleSamples.length - 1) * IDLE_STEP_MS) / 1000;
  let peak = ap.rss();
  const ids: string[] = [];
  for (let i = 0; i < threads; i += 1) {
    const res = await ap.api('/threads', { json: {} });
    expectStatus('create thread', res, 200);
    ids.push(res.body.thread_id);
  }
  const perThread = Math.ceil(runs / threads);
  const started = performance.now();
  await Promise.all(
    ids.map(async (threadId, t) => {
      for (let i = 0; i < perThread && t * perThread + i < runs; i += 1) {
        const res = await ap.api(`/threads/${threadId}/runs/wait`, {
          json: { assistant_id: LARGE_GRAPH, input: { messages: [{ role: 'user', content: `go ${i}` }] } },
        });
        expectStatus('run', res, 200);
        peak = Math.max(peak, ap.rss());
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const peakMB = mb(Math.max(peak, ap.rss()));
  const samplesMB = [mb(ap.rss())];
  for (let waited = 0; waited < BURST_SECONDS; waited += BURST_STEP_S) {
    await delay(BURST_STEP_S * 1000);
    samplesMB.push(mb(ap.rss()));
  }
  const afterMB = samplesMB.at(-1)!;
  log(
    `  ${runs} runs over ${threads} thread(s) in ${seconds.toFixed(1)} s: idle ${idleMB} MB (settled ${idleAfterS} s after the first 200: ${idleSamples.map(mb).join(' → ')}), peak ${peakMB} MB, then ${samplesMB.join(' → ')} MB`,
  );
  return { threads, runs, idleMB, idleAfterS, peakMB, samplesMB, afterMB, ratio: Math.round((afterMB / idleMB) * 100) / 100 };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const threads = Number(process.argv[2] ?? 1);
  const runs = Number(process.argv[3] ?? BURST_RUNS);
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'memory-burst-'));
  // its data directory and the server's output, removed however the bench ends
  removeAtExit(work);
  const ap = await startAgentplane({
    dataDir: path.join(work, 'data'),
    workDir: work,
    graphs: largeGraphSpec(),
    nodeArgs: process.env.BURST_NODE_ARGS ? process.env.BURST_NODE_ARGS.split(' ') : [],
    root: process.env.BURST_ROOT,
    env: process.env.BURST_LOG_LEVEL ? { LOG_LEVEL: process.env.BURST_LOG_LEVEL } : {},
  });
  try {
    const figure = await measureBurst(ap, threads, runs);
    console.log(JSON.stringify(figure));
  } finally {
    await ap.stop();
    if (process.env.BURST_OUTPUT) fs.writeFileSync(process.env.BURST_OUTPUT, ap.output());
  }
}
