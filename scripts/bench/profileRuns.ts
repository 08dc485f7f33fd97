// `npx tsx scripts/bench/profileRuns.ts [out dir]`: profiles the runs the bench measures. The
// LangGraph echo graph runs 100 times on one thread (after the bench's warm-up), once in
// process (AGENTPLANE_RUN_WORKERS=0) and once in a run worker, under `node --cpu-prof`; the
// profiles are drawn as flame graphs (flame.ts) into the out dir (default docs/profiles):
// runs-in-process.svg, runs-worker.svg (the worker thread) and runs-worker-main.svg (the main
// thread beside it). Side by side they show what a run costs LangGraph itself and what
// carrying it across a thread boundary adds. The .cpuprofile files stay in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { enqueueAndDrain, ONE_THREAD_RUNS } from './runs.ts';
import { renderFlameGraph } from './flame.ts';
import { SHARED_GRAPH } from './figures.ts';

const out = path.resolve(ROOT, process.argv[2] ?? 'docs/profiles');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-runs-'));

/** The profiles of one server's run of the scenario, largest (busiest thread) first. */
async function profile(name: string, workers: string): Promise<string[]> {
  const dir = path.join(work, name);
  const ap = await startAgentplane({
    dataDir: path.join(dir, 'data'),
    workDir: dir,
    env: { AGENTPLANE_RUN_WORKERS: workers },
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${path.join(dir, 'cpu')}`],
  });
  const target = { server: 'agentplane' as const, url: ap.url, headers: ap.headers, assistant: SHARED_GRAPH };
  try {
    await enqueueAndDrain(target, 4, 5);
    const r = await enqueueAndDrain(target, 1, ONE_THREAD_RUNS);
    // a sanity check only: profiling slows the runs
    console.log(`${name}: ${ONE_THREAD_RUNS} runs on one thread in ${r.seconds.toFixed(2)} s, not success: ${r.failed}`);
  } finally {
    await ap.stop();
  }
  const cpu = path.join(dir, 'cpu');
  return fs
    .readdirSync(cpu)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(cpu, f))
    .sort((a, b) => fs.statSync(b).size - fs.statSync(a).size);
}

function draw(file: string, svg: string, title: string): void {
  fs.copyFileSync(file, path.join(ROOT, '.bench', svg.replace(/\.svg$/, '.cpuprofile')));
  fs.writeFileSync(path.join(out, svg), renderFlameGraph(JSON.parse(fs.readFileSync(file, 'utf8')), title));
  console.log(`wrote ${path.join(out, svg)}`);
}

fs.mkdirSync(out, { recursive: true });
const scenario = `${ONE_THREAD_RUNS} LangGraph echo runs on one thread`;
const [inProcess] = await profile('in-process', '0');
draw(inProcess, 'runs-in-process.svg', `agentplane, ${scenario}, in process (AGENTPLANE_RUN_WORKERS=0): the main thread`);
// the run worker is the busiest thread of a worker run; the main thread is the process's first profile
const workerRun = await profile('worker', '1');
const mainThread = workerRun.find((f) => /\.0\.\d+\.cpuprofile$/.test(f)) ?? workerRun[1];
const worker = workerRun.find((f) => f !== mainThread)!;
draw(worker, 'runs-worker.svg', `agentplane, ${scenario}, in a run worker: the worker thread`);
draw(mainThread, 'runs-worker-main.svg', `agentplane, ${scenario}, in a run worker: the main thread beside it`);
fs.rmSync(work, { recursive: true, force: true });
