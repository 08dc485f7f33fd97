// Enqueued runs/s with one agentplane replica and with several on one PostgreSQL database:
// RUNS runs of agentplane's plain-function echo (or, with one replica, of the LangGraph echo
// with the default run workers) over THREADS threads, each thread's runs
// created one after another (multitask_strategy enqueue) by its own client, run k of the
// sample going to replica k mod n — so consecutive runs of one thread are created on
// different replicas. Timed from the first create to the moment every run is finished: the
// last run of each thread is joined on the replica that created it, then the thread's runs
// are read until none is pending or running. Afterwards each thread's messages must be its
// runs' inputs in creation order, each followed by exactly one echo (a run executed twice,
// lost or out of order shows there). With `statements`, PostgreSQL's count of the statements
// sent over the timed part (the bench's joins and polls of the runs list included, a few
// per thread) and the replicas' CPU per run are reported too. `store: 'embedded'` marks a
// process on the embedded store given the same workload (the PostgreSQL replicas' reference).
import os from 'node:os';
import { expectStatus as ok, request, type Agentplane } from './agentplane.ts';
import type { ReplicaFigure } from './figures.ts';
import { BENCH_GRAPH } from './graph.ts';

export const REPLICA_THREADS = 20;
export const REPLICA_RUNS = 400;
/** Rounds per tree and replica count: one round's runs/s and CPU per run move by several % with the host. */
export const REPLICA_ROUNDS = 3;
const FINISH_TIMEOUT_MS = 120_000;

const call = (ap: Agentplane, method: string, pathname: string, json?: unknown, timeoutMs = 30_000) =>
  request(ap.url + pathname, { method, headers: ap.headers, json, timeoutMs });

/** PostgreSQL's own count of the statements run in the replicas' database (pgCount.ts). */
export interface Statements {
  reset(): Promise<void>;
  count(): Promise<{ calls: number; top: { calls: number; query: string }[] }>;
}

const loadavg = () => os.loadavg().map((l) => Math.round(l * 100) / 100);
const TERMINAL = new Set(['success', 'error', 'timeout', 'interrupted']);

export async function measureReplicas(
  replicas: Agentplane[],
  graph: string,
  workers: string,
  log: (s: string) => void,
  counts = { threads: REPLICA_THREADS, runs: REPLICA_RUNS },
  measure: { server?: 'baseline'; store?: 'embedded'; statements?: Statements } = {},
): Promise<ReplicaFigure> {
  const n = replicas.length;
  const perThread = Math.ceil(counts.runs / counts.threads);
  const createRun = async (ap: Agentplane, threadId: string, content: string): Promise<string> => {
    const res = await call(ap, 'POST', `/threads/${threadId}/runs`, {
      assistant_id: graph,
      input: { messages: [{ role: 'user', content }] },
      multitask_strategy: 'enqueue',
    });
    ok('POST /threads/{id}/runs', res, 200, 201);
    return res.body.run_id;
  };
  const newThread = async (ap: Agentplane): Promise<string> => {
    const res = await call(ap, 'POST', '/threads', {});
    ok('POST /threads', res, 200, 201);
    return res.body.thread_id;
  };

  // warm-up on every replica (code paths, the graph's module, the pool's connections)
  await Promise.all(
    replicas.map(async (ap) => {
      for (let t = 0; t < 2; t += 1) {
        const thread = await newThread(ap);
        let last = '';
        for (let i = 0; i < 5; i += 1) last = await createRun(ap, thread, `warm ${i}`);
        ok('warm-up join', await call(ap, 'GET', `/threads/${thread}/runs/${last}/join`, undefined, FINISH_TIMEOUT_MS), 200);
      }
    }),
  );

  const threads = await Promise.all(Array.from({ length: counts.threads }, (_, t) => newThread(replicas[t % n])));
  await measure.statements?.reset();
  const loadBefore = loadavg();
  const cpuBefore = replicas.reduce((sum, ap) => sum + ap.cpu(), 0);
  const started = performance.now();
  const deadline = started + FINISH_TIMEOUT_MS;
  const sent: string[][] = threads.map(() => []);
  await Promise.all(
    threads.map(async (threadId, t) => {
      let last = { run: '', on: replicas[0] };
      for (let i = 0; i < perThread; i += 1) {
        const on = replicas[(t * perThread + i) % n];
        const content = `t${t} r${i}`;
        last = { run: await createRun(on, threadId, content), on };
        sent[t].push(content);
      }
      const joined = await call(last.on, 'GET', `/threads/${threadId}/runs/${last.run}/join`, undefined, Math.max(1000, deadline - performance.now())).catch(
        (err: Error) => ({ status: 0, text: err.message, body: undefined }),
      );
      if (joined.status !== 200) log(`  join of thread ${t}'s last run answered ${joined.status} ${joined.text.slice(0, 120)}; reading its runs instead`);
      // every run of the thread finished, whoever ran it
      for (;;) {
        const runs = await call(replicas[0], 'GET', `/threads/${threadId}/runs?limit=1000`);
        ok('GET /threads/{id}/runs', runs, 200);
        if ((runs.body as { status: string }[]).every((r) => TERMINAL.has(r.status))) return;
        if (performance.now() > deadline) throw new Error(`thread ${t}: runs still unfinished ${FINISH_TIMEOUT_MS / 1000} s after the first create`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const replicaCpuSeconds = Math.round((replicas.reduce((sum, ap) => sum + ap.cpu(), 0) - cpuBefore) * 100) / 100;
  const loadAfter = loadavg();
  // read before the history checks below, whose reads are the bench's, not the runs'
  const statements = await measure.statements?.count();

  let failed = 0;
  let threadsWrong = 0;
  for (const [t, threadId] of threads.entries()) {
    const runs = await call(replicas[0], 'GET', `/threads/${threadId}/runs?limit=1000`);
    ok('GET /threads/{id}/runs', runs, 200);
    const list = runs.body as { status: string }[];
    failed += list.filter((r) => r.status !== 'success').length + Math.max(0, perThread - list.length);
    const state = await call(replicas[n - 1], 'GET', `/threads/${threadId}/state`);
    ok('GET /threads/{id}/state', state, 200);
    const messages = (state.body?.values?.messages ?? []) as { type?: string; role?: string; content: unknown }[];
    const expected = sent[t].flatMap((content) => [`human:${content}`, `ai:${content}`]);
    const got = messages.map((m) => `${m.type ?? m.role}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
    if (got.join('\n') !== expected.join('\n')) threadsWrong += 1;
  }
  const runs = perThread * counts.threads;
  const figure: ReplicaFigure = {
    replicas: n,
    graph,
    workers,
    threads: counts.threads,
    runs,
    seconds: Math.round(seconds * 100) / 100,
    runsPerSecond: Math.round((runs / seconds) * 10) / 10,
    failed,
    threadsWrong,
    loadBefore,
    loadAfter,
    replicaCpuSeconds,
    cpuMsPerRun: Math.round((replicaCpuSeconds / runs) * 1000 * 100) / 100,
    ...(measure.server ? { server: measure.server } : {}),
    ...(measure.store ? { store: measure.store } : {}),
    ...(statements ? { statementsPerRun: Math.round((statements.calls / runs) * 10) / 10 } : {}),
  };
  const tree = `${measure.server ? ' (baseline)' : ''}${measure.store ? ` on the ${measure.store} store` : ''}${graph === BENCH_GRAPH ? `, LangGraph echo, run workers ${workers}` : ''}`;
  log(
    `  ${n} replica${n > 1 ? 's' : ''}${tree}: ${runs} runs in ${figure.seconds} s = ${figure.runsPerSecond} runs/s (not success ${failed}, threads with a wrong history ${threadsWrong}); replicas' CPU ${replicaCpuSeconds} s = ${figure.cpuMsPerRun} ms/run; ${statements ? `${figure.statementsPerRun} PostgreSQL statements/run; ` : ''}load ${loadBefore.join(', ')} → ${loadAfter.join(', ')}`,
  );
  if (statements) for (const q of statements.top) log(`    ${(q.calls / runs).toFixed(2)}/run  ${q.query}`);
  return figure;
}

/**
 * One figure of several rounds: runs/s, CPU per run and statements per run each the median of
 * the rounds, runs not success and threads with a wrong history summed over them, the load
 * before the first and after the last.
 */
export function medianReplicaFigure(rounds: ReplicaFigure[]): ReplicaFigure {
  const median = (xs: (number | undefined)[]) => {
    const known = xs.filter((x): x is number => x !== undefined).sort((a, b) => a - b);
    return known.length ? known[Math.floor(known.length / 2)] : undefined;
  };
  const first = rounds[0];
  const runsPerSecond = median(rounds.map((r) => r.runsPerSecond))!;
  const cpuMsPerRun = median(rounds.map((r) => r.cpuMsPerRun));
  const statementsPerRun = median(rounds.map((r) => r.statementsPerRun));
  return {
    ...first,
    seconds: Math.round((first.runs / runsPerSecond) * 100) / 100,
    runsPerSecond,
    failed: rounds.reduce((n, r) => n + r.failed, 0),
    threadsWrong: rounds.reduce((n, r) => n + r.threadsWrong, 0),
    loadAfter: rounds.at(-1)!.loadAfter,
    replicaCpuSeconds: cpuMsPerRun === undefined ? first.replicaCpuSeconds : Math.round(((cpuMsPerRun * first.runs) / 1000) * 100) / 100,
    ...(cpuMsPerRun !== undefined ? { cpuMsPerRun } : {}),
    ...(statementsPerRun !== undefined ? { statementsPerRun } : {}),
    rounds: rounds.map((r) => ({
      runsPerSecond: r.runsPerSecond,
      ...(r.cpuMsPerRun !== undefined ? { cpuMsPerRun: r.cpuMsPerRun } : {}),
      ...(r.statementsPerRun !== undefined ? { statementsPerRun: r.statementsPerRun } : {}),
    })),
  };
}
