// Child process of graphAlone.ts: the bench graph run by LangGraph alone, in this process, with
// LangGraph's in-memory checkpointer (the upstream dev server's kind) and no server around it,
// in the counts the servers get. Prints one JSON line: the figures per scenario.
import { randomUUID } from 'node:crypto';
import { loadGraphAlone, runAlone } from './graphAloneGraph.ts';
import { ONE_THREAD_RUNS, RUN_ROUNDS, RUNS_PER_THREAD, WARM_UP } from './runs.ts';

/** The counts: the runs phase's unless given (the fresh rounds give their own warm-up, runs and one round). */
const counts = (process.argv[3] ? JSON.parse(process.argv[3]) : {}) as {
  warmUp?: [number, number][];
  oneThreadRuns?: number;
  runsPerThread?: number;
  rounds?: number;
};

const graph = await loadGraphAlone(process.argv[2]);

/** `perThread` runs one after another on each of `threads` threads, the threads side by side. */
async function drain(threads: number, perThread: number): Promise<number> {
  const ids = Array.from({ length: threads }, () => randomUUID());
  const started = performance.now();
  await Promise.all(
    ids.map(async (threadId) => {
      for (let i = 0; i < perThread; i += 1) await runAlone(graph, threadId, 'hello');
    }),
  );
  return (performance.now() - started) / 1000;
}

for (const [threads, perThread] of counts.warmUp ?? WARM_UP) await drain(threads, perThread); // the same warm-up as the servers'
// the same rounds as the servers', one scenario's rounds after another
const rounds = async (threads: number, perThread: number) => {
  const measured: { runs: number; seconds: number; cpuMs: number }[] = [];
  for (let i = 0; i < (counts.rounds ?? RUN_ROUNDS); i += 1) {
    // the process's CPU (every thread: V8's helpers too), what the servers' are read against
    const cpu = process.cpuUsage();
    const seconds = await drain(threads, perThread);
    const used = process.cpuUsage(cpu);
    measured.push({ runs: threads * perThread, seconds, cpuMs: (used.user + used.system) / 1000 });
  }
  return measured;
};
const one = await rounds(1, counts.oneThreadRuns ?? ONE_THREAD_RUNS);
const many = await rounds(100, counts.runsPerThread ?? RUNS_PER_THREAD);
console.log(JSON.stringify({ one, many }));
