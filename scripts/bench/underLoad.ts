// Responsiveness while CPU-bound runs are queued: the health check and run creation, idle and
// then behind a backlog of runs of a graph that computes for BUSY_MS without awaiting I/O.
// Probes are sequential requests timed one by one (the bench process itself stays idle, the
// server is a child process), so a figure is what one client waits, not queueing in the client.
import fs from 'node:fs';
import path from 'node:path';
import type { Agentplane } from './agentplane.ts';
import type { UnderLoadFigure } from './figures.ts';
import { PLAIN_GRAPH } from './graph.ts';
import { delay } from './proc.ts';
import { median } from './protocolFigures.ts';
import { waitForSettledStart } from './settledStart.ts';

export const BUSY_GRAPH = 'busy';
export const BUSY_MS = 200;
export const BACKLOG_RUNS = 120;
/** Runs per POST /runs/batch (at most 100). */
const BATCH = 60;
const PROBE_SECONDS = 8;
/**
 * A p99 is read from the probes: with a few hundred, it is the second or third slowest, and
 * one stall of the shared host moved the loaded ÷ idle ratio between 1.07× and 2.08× from one
 * run to the next. Probing every 10 ms (about 700 loaded probes) and 1,000 idle ones puts
 * each p99 on the slowest 1% of many.
 */
const IDLE_OK_PROBES = 1000;
const OK_PROBE_EVERY_MS = 10;
const IDLE_CREATE_PROBES = 20;

const BUSY_SOURCE = `// Written by scripts/bench/underLoad.ts: a graph that computes for ${BUSY_MS} ms without awaiting anything.
export async function busy(state: { messages?: unknown[] }) {
  const end = Date.now() + ${BUSY_MS};
  let x = 0;
  while (Date.now() < end) x += Math.sqrt(x + 1);
  return { messages: [{ type: 'ai', content: 'computed ' + (x > 0) + ' after ' + (state.messages ?? []).length + ' message(s)' }] };
}
`;

/** Writes the busy graph into dir; returns the `file:export` spec for the project file. */
export function writeBusyGraph(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'busy-graph.ts');
  fs.writeFileSync(file, BUSY_SOURCE);
  return `${file}:busy`;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : NaN);
const round = (n: number) => Math.round(n * 100) / 100;

async function timed(url: string, init: RequestInit): Promise<{ ms: number; status: number; body: any }> {
  const started = performance.now();
  const res = await fetch(url, init);
  const text = await res.text();
  return { ms: performance.now() - started, status: res.status, body: text ? JSON.parse(text) : undefined };
}

export async function measureUnderLoad(ap: Agentplane, setting: string, log: (s: string) => void): Promise<UnderLoadFigure> {
  const json = { ...ap.headers, 'content-type': 'application/json' };
  const ok = () => timed(`${ap.url}/ok`, { headers: ap.headers });
  const newThread = async () => (await timed(`${ap.url}/threads`, { method: 'POST', headers: json, body: '{}' })).body.thread_id as string;
  const createRun = async (threadId: string, assistant: string) => {
    const r = await timed(`${ap.url}/threads/${threadId}/runs`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ assistant_id: assistant, input: { messages: [{ type: 'human', content: 'hi' }] }, multitask_strategy: 'enqueue' }),
    });
    if (r.status !== 200) throw new Error(`POST /threads/{id}/runs answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
    return r;
  };

  // idle: nothing else runs, once the start's own work (its warm run worker, the run path's warm-up) is done
  await waitForSettledStart(() => ap.rss());
  const idleOk: number[] = [];
  for (let i = 0; i < IDLE_OK_PROBES; i += 1) idleOk.push((await ok()).ms);
  const idleCreate: number[] = [];
  for (let i = 0; i < IDLE_CREATE_PROBES; i += 1) {
    const threadId = await newThread();
    const run = await createRun(threadId, PLAIN_GRAPH);
    idleCreate.push(run.ms);
    await fetch(`${ap.url}/threads/${threadId}/runs/${run.body.run_id}/join`, { headers: ap.headers }).then((r) => r.text());
  }

  // the backlog: CPU-bound runs, each on its own new thread, sent in batches while the probes
  // run (a server that executes runs on its request loop takes as long to accept the backlog
  // as to run it, so the probes must overlap its creation to see it at all)
  const probeThreads = await Promise.all(Array.from({ length: Math.ceil((PROBE_SECONDS * 1000) / 250) + 2 }, () => newThread()));
  const backlog = (async () => {
    for (let made = 0; made < BACKLOG_RUNS; made += BATCH) {
      const items = Array.from({ length: Math.min(BATCH, BACKLOG_RUNS - made) }, () => ({
        assistant_id: BUSY_GRAPH,
        input: { messages: [{ type: 'human', content: 'compute' }] },
      }));
      const batch = await timed(`${ap.url}/runs/batch`, { method: 'POST', headers: json, body: JSON.stringify(items) });
      if (batch.status !== 200) throw new Error(`POST /runs/batch answered ${batch.status}: ${JSON.stringify(batch.body).slice(0, 200)}`);
    }
  })();
  await delay(100); // the first batch is in

  // meanwhile: the health check every 10 ms, a new run (on a thread made beforehand) every 250 ms
  const loadedOk: number[] = [];
  const loadedCreate: number[] = [];
  const until = performance.now() + PROBE_SECONDS * 1000;
  await Promise.all([
    (async () => {
      while (performance.now() < until) {
        loadedOk.push((await ok()).ms);
        await delay(OK_PROBE_EVERY_MS);
      }
    })(),
    (async () => {
      while (performance.now() < until) {
        loadedCreate.push((await createRun(probeThreads[loadedCreate.length], PLAIN_GRAPH)).ms);
        await delay(250);
      }
    })(),
  ]);
  await backlog;

  const s = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const [io, ic, lo, lc] = [s(idleOk), s(idleCreate), s(loadedOk), s(loadedCreate)];
  const figure: UnderLoadFigure = {
    setting,
    busyMs: BUSY_MS,
    backlogRuns: BACKLOG_RUNS,
    probeSeconds: PROBE_SECONDS,
    idleOkP50Ms: round(percentile(io, 50)),
    idleOkP99Ms: round(percentile(io, 99)),
    loadedOkP50Ms: round(percentile(lo, 50)),
    loadedOkP99Ms: round(percentile(lo, 99)),
    idleCreateP50Ms: round(percentile(ic, 50)),
    loadedCreateP50Ms: round(percentile(lc, 50)),
    loadedCreateMaxMs: round(lc.at(-1) ?? NaN),
    okProbes: lo.length,
    createProbes: lc.length,
  };
  log(
    `  ${setting}: GET /ok p99 idle ${figure.idleOkP99Ms} ms → loaded ${figure.loadedOkP99Ms} ms (${lo.length} probes); ` +
      `POST runs p50 idle ${figure.idleCreateP50Ms} ms → loaded ${figure.loadedCreateP50Ms} ms (max ${figure.loadedCreateMaxMs} ms, ${lc.length} probes)`,
  );
  return figure;
}

/**
 * One figure from a tree's rounds: each measured field the median of the rounds' (the rounds
 * kept beside it). One probe phase per tree gave ~30 run creations behind the backlog, and the
 * p50 of so few moved by more than the 5% a regression is read at (2.34 against 2.15 ms in the
 * run of 2026-11-27): the trees now take turns, several rounds, each on a fresh server.
 */
export function medianUnderLoad(rounds: UnderLoadFigure[]): UnderLoadFigure {
  const mid = (pick: (f: UnderLoadFigure) => number) => round(median(rounds.map(pick)));
  const first = rounds[0];
  return {
    ...first,
    idleOkP50Ms: mid((f) => f.idleOkP50Ms),
    idleOkP99Ms: mid((f) => f.idleOkP99Ms),
    loadedOkP50Ms: mid((f) => f.loadedOkP50Ms),
    loadedOkP99Ms: mid((f) => f.loadedOkP99Ms),
    idleCreateP50Ms: mid((f) => f.idleCreateP50Ms),
    loadedCreateP50Ms: mid((f) => f.loadedCreateP50Ms),
    loadedCreateMaxMs: mid((f) => f.loadedCreateMaxMs),
    okProbes: mid((f) => f.okProbes),
    createProbes: mid((f) => f.createProbes),
    rounds: rounds.map(({ rounds: _nested, ...f }) => f),
  };
}
