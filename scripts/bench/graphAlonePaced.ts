// Child process of fanout.ts's `BENCH_FANOUT_CEILING_BESIDE_GRAPH=1` (issue 87): the fan-out's
// runs as LangGraph alone would run them (graphAloneGraph.ts) — no server, no HTTP, no store, no event log — on as many threads, at the rate agentplane ran
// them under its subscribers, at the run workers' lower scheduling priority: LangGraph's own work
// on those runs, put beside the bare broadcaster, tells whether the runs' CPU on the cores is what
// keeps a server's `/ok` p99 from the broadcaster's.
// usage: node --import tsx graphAlonePaced.ts <graph file:export> <threads> <runs/s a thread> <history runs a thread>
// Prints `paced` once each thread holds its history and the paced runs begin; runs until its stdin
// closes, then prints one JSON line: { runs, seconds, cpuMs }.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { RUN_WORKER_NICENESS } from '../../src/adapters/run-workers/schedulingPriority.ts';
import { loadGraphAlone, runAlone } from './graphAloneGraph.ts';

const [spec, threadsArg, rateArg, historyArg] = process.argv.slice(2);
const graph = await loadGraphAlone(spec);
// the whole process (its V8 helpers too) below the broadcaster, as agentplane's run workers are below its main thread
os.setPriority(process.pid, Math.min(19, os.getPriority(process.pid) + RUN_WORKER_NICENESS));

const threads = Array.from({ length: Number(threadsArg) }, () => randomUUID());
const spacingMs = 1000 / Number(rateArg);
const run = (threadId: string) => runAlone(graph, threadId, 'fan-out');

// each thread's state as long as agentplane's threads' were when its loaded window began
for (let i = 0; i < Number(historyArg); i += 1) await Promise.all(threads.map(run));
process.stdout.write('paced\n');

let stopped = false;
process.stdin.on('end', () => void (stopped = true)).resume();
const cpu = process.cpuUsage();
const started = performance.now();
let runs = 0;
await Promise.all(
  threads.map(async (threadId, i) => {
    // the threads' starts spread over one spacing, as agentplane's runs do not start in step
    let next = performance.now() + (spacingMs * i) / threads.length;
    while (!stopped) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await run(threadId);
      runs += 1;
      next = Math.max(next + spacingMs, performance.now());
    }
  }),
);
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ runs, seconds: (performance.now() - started) / 1000, cpuMs: (used.user + used.system) / 1000 }));
