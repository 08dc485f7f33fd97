// `npx tsx scripts/bench/profileRuns.ts [out dir]`: profiles the runs the bench measures. The
// LangGraph echo graph runs 100 times on one thread (after the bench's warm-up), once in
// process (AGENTPLANE_RUN_WORKERS=0) and once in a run worker, under `node --cpu-prof`; the
// profiles are drawn as flame graphs (flame.ts) into the out dir (default docs/profiles):
// runs-in-process.svg, runs-worker.svg (the worker thread) and runs-worker-main.svg (the main
// thread beside it). Side by side they show what a run costs LangGraph itself and what
// carrying it across a thread boundary adds. Then 1,000 runs over 100 threads (10 each, after
// the same warm-up) with the default run workers: runs-100-threads-worker.svg (the busier
// worker) and runs-100-threads-main.svg, and each thread's busy share of the run printed,
// since on 100 threads the cores, not a thread's chain of runs, are the bound. The
// .cpuprofile files stay in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { enqueueAndDrain, ONE_THREAD_RUNS } from './runs.ts';
import { renderFlameGraph } from './flame.ts';
import { SHARED_GRAPH } from './figures.ts';

const out = path.resolve(ROOT, process.argv[2] ?? 'docs/profiles');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-runs-'));

/** The profiles of one server's run of the scenario, largest (busiest thread) first. */
async function profile(name: string, workers: string | undefined, threads = 1, perThread = ONE_THREAD_RUNS): Promise<string[]> {
  const dir = path.join(work, name);
  const ap = await startAgentplane({
    dataDir: path.join(dir, 'data'),
    workDir: dir,
    env: workers === undefined ? {} : { AGENTPLANE_RUN_WORKERS: workers },
    nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${path.join(dir, 'cpu')}`],
  });
  const target = { server: 'agentplane' as const, url: ap.url, headers: ap.headers, assistant: SHARED_GRAPH };
  try {
    await enqueueAndDrain(target, 4, 5);
    if (threads > 1) await enqueueAndDrain(target, threads, 5);
    const r = await enqueueAndDrain(target, threads, perThread);
    // a sanity check only: profiling slows the runs
    console.log(`${name}: ${threads * perThread} runs on ${threads} thread(s) in ${r.seconds.toFixed(2)} s, not success: ${r.failed}`);
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

/** A profile's busy time (every sample but the idle ones) in seconds, and its whole span. */
function busy(file: string): { busy: number; span: number } {
  const p = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    nodes: { id: number; callFrame: { functionName: string } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const idle = new Set(p.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  let all = 0;
  let spent = 0;
  p.samples.forEach((id, i) => {
    all += p.timeDeltas[i] ?? 0;
    if (!idle.has(id)) spent += p.timeDeltas[i] ?? 0;
  });
  return { busy: spent / 1e6, span: all / 1e6 };
}

const many = await profile('100-threads', undefined, 100, 10);
const manyMain = many.find((f) => /\.0\.\d+\.cpuprofile$/.test(f)) ?? many[1];
const manyWorker = many.find((f) => f !== manyMain)!;
draw(manyWorker, 'runs-100-threads-worker.svg', 'agentplane, 1,000 LangGraph echo runs over 100 threads, default run workers: the busier worker thread');
draw(manyMain, 'runs-100-threads-main.svg', 'agentplane, 1,000 LangGraph echo runs over 100 threads, default run workers: the main thread');
for (const file of many) {
  const { busy: b, span } = busy(file);
  console.log(`  ${path.basename(file)}: busy ${b.toFixed(2)} s of ${span.toFixed(2)} s`);
}
fs.rmSync(work, { recursive: true, force: true });
