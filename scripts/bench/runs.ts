// 3. Runs: background runs of the echo graph, created back to back (multitask_strategy
// enqueue) and counted from the first create to the last success. The same client code drives
// agentplane and the upstream JS dev server, since both speak the agent-server API.
import { randomUUID } from 'node:crypto';
import { expectStatus, request } from './agentplane.ts';
import type { RunFigure, Server } from './figures.ts';

export interface Target {
  server: Server;
  url: string;
  headers: Record<string, string>;
  assistant: string;
}

const THREADS = 100;

async function call(t: Target, method: string, pathname: string, json?: unknown) {
  return request(t.url + pathname, { method, headers: t.headers, json });
}

async function createThread(t: Target): Promise<string> {
  const res = await call(t, 'POST', '/threads', {});
  expectStatus('POST /threads', res, 200, 201);
  return res.body.thread_id;
}

async function createRun(t: Target, threadId: string): Promise<string> {
  const res = await call(t, 'POST', `/threads/${threadId}/runs`, {
    assistant_id: t.assistant,
    input: { messages: [{ role: 'user', content: `hello ${randomUUID()}` }] },
    multitask_strategy: 'enqueue',
  });
  expectStatus('POST /threads/{id}/runs', res, 200, 201);
  return res.body.run_id;
}

async function join(t: Target, threadId: string, runId: string): Promise<void> {
  const res = await call(t, 'GET', `/threads/${threadId}/runs/${runId}/join`);
  expectStatus('GET /threads/{id}/runs/{run_id}/join', res, 200);
}

async function notSuccess(t: Target, threadId: string, expected: number): Promise<number> {
  let bad = 0;
  let seen = 0;
  for (let offset = 0; offset < expected; offset += 1000) {
    const res = await call(t, 'GET', `/threads/${threadId}/runs?limit=1000&offset=${offset}`);
    expectStatus('GET /threads/{id}/runs', res, 200);
    for (const run of res.body as { status: string }[]) {
      seen += 1;
      if (run.status !== 'success') bad += 1;
    }
    if ((res.body as unknown[]).length < 1000) break;
  }
  return bad + Math.max(0, expected - seen);
}

/** `perThread` runs enqueued on each of `threads` threads (made beforehand, untimed). */
export async function enqueueAndDrain(t: Target, threads: number, perThread: number): Promise<{ runs: number; seconds: number; failed: number }> {
  const ids = await Promise.all(Array.from({ length: threads }, () => createThread(t)));
  const started = performance.now();
  await Promise.all(
    ids.map(async (threadId) => {
      let last = '';
      for (let i = 0; i < perThread; i += 1) last = await createRun(t, threadId);
      await join(t, threadId, last);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  let failed = 0;
  for (const threadId of ids) failed += await notSuccess(t, threadId, perThread);
  return { runs: threads * perThread, seconds, failed };
}

/** The same counts for every server: a thread's state grows with each run, so equal work needs equal counts. */
export const ONE_THREAD_RUNS = 100;
export const RUNS_PER_THREAD = 10;

/**
 * The untimed runs before the rounds, as [threads, runs per thread]: a few runs that load the
 * graph, then one round of each scenario. Every server's first round of a scenario is slower
 * than its next ones (the code paths it takes are still being compiled; a server with run
 * workers compiles them once in each worker's isolate, and the one-thread rounds keep one
 * worker busy): measured after them, a figure is of a warm server.
 */
export const WARM_UP: readonly [number, number][] = [
  [4, 5],
  [1, ONE_THREAD_RUNS],
  [THREADS, RUNS_PER_THREAD],
];

/**
 * Rounds of each scenario per target. One round of a scenario moves by ±20% with the shared
 * host's load, so a figure is the median of its rounds (each on fresh threads). With three,
 * two reports of the same code an hour apart put agentplane's 100-thread LangGraph runs at
 * 3.27× and 2.68× the upstream server's (rounds 357.8 / 418 / 434.2 and 334 / 372.2 / 454.8
 * runs/s, upstream's 142.6 / 127.9 / 118.1 and 153.7 / 139.1 / 104.1): five hold the median
 * to the middle of more of the host's hour.
 */
// BENCH_RUN_ROUNDS sets another count: a comparison of two trees on one scenario (a bisection) needs more
// rounds than the report, the rounds of one tree ranging ±20% on two shared cores (an even count
// takes the upper of the two middle rounds as the median)
export const RUN_ROUNDS = Number(process.env.BENCH_RUN_ROUNDS ?? 5);

/** The round of the median runs/s (an odd count of rounds: the middle one). */
export function medianRound<T extends { runs: number; seconds: number }>(rounds: T[]): T {
  return [...rounds].sort((a, b) => a.runs / a.seconds - b.runs / b.seconds)[Math.floor(rounds.length / 2)];
}

type Drained = { runs: number; seconds: number; failed: number };

/**
 * The warm-up, then each scenario's rounds on every target in turn (the order flips every
 * round), so servers measured side by side share the machine's hour rather than one getting
 * a quieter one, and none is always first.
 */
export async function measureRuns(targets: Target | Target[], log: (s: string) => void): Promise<{ figures: RunFigure[]; completed: number }> {
  const list = Array.isArray(targets) ? targets : [targets];
  const figures: RunFigure[] = [];
  let completed = 0;
  const drain = async (t: Target, threads: number, perThread: number) => {
    const r = await enqueueAndDrain(t, threads, perThread);
    completed += r.runs - r.failed;
    return r;
  };
  const perSecond = (r: Drained) => Math.round((r.runs / r.seconds) * 10) / 10;
  const record = (t: Target, scenario: RunFigure['scenario'], rounds: Drained[]) => {
    const median = medianRound(rounds);
    const figure: RunFigure = {
      server: t.server,
      graph: t.assistant,
      scenario,
      runs: median.runs,
      seconds: Math.round(median.seconds * 100) / 100,
      runsPerSecond: perSecond(median),
      // every round's runs are checked, not only the median's
      failed: rounds.reduce((n, r) => n + r.failed, 0),
      rounds: rounds.map(perSecond),
    };
    log(
      `  ${t.server.padEnd(10)} ${t.assistant.padEnd(10)} runs, ${scenario.padEnd(11)}: median of ${rounds.length} rounds ${figure.runsPerSecond} runs/s (${figure.rounds!.join(', ')}; not success: ${figure.failed})`,
    );
    figures.push(figure);
  };
  for (const t of list) for (const [threads, perThread] of WARM_UP) await drain(t, threads, perThread);
  const scenarios: [RunFigure['scenario'], number, number][] = [
    ['one thread', 1, ONE_THREAD_RUNS],
    ['100 threads', THREADS, RUNS_PER_THREAD],
  ];
  let round = 0;
  for (const [scenario, threads, perThread] of scenarios) {
    const rounds = new Map<Target, Drained[]>(list.map((t) => [t, []]));
    for (let i = 0; i < RUN_ROUNDS; i += 1, round += 1) {
      for (const t of round % 2 ? [...list].reverse() : list) {
        const r = await drain(t, threads, perThread);
        log(
          `    ${t.server.padEnd(10)} ${t.assistant.padEnd(10)} ${scenario.padEnd(11)} round ${i + 1}: ${r.runs} in ${r.seconds.toFixed(2)} s = ${perSecond(r)} runs/s`,
        );
        rounds.get(t)!.push(r);
      }
    }
    for (const t of list) record(t, scenario, rounds.get(t)!);
  }
  return { figures, completed };
}
