// A tenant floods, another keeps its service? (issue 83, "done when": B's p99 within 1.5x of
// its quiet figure, its runs within one run's length.) Measures it on loopback: a server in
// process with agent-server auth on and every limit at its default (the embedded store in a
// temporary directory); tenant A floods it from a process of its own at the lowest priority
// (floodClient.ts: 32 connections each sending its next request as soon as the last is
// answered — thread creations, stateless runs of a 1-s graph, deployments, store items — and 64
// key-less WebSocket upgrades opened again as soon as they are let go) while tenant B reads one
// of its threads every 25 ms and runs its own run. Quiet and flooded spells alternate (A paused
// and resumed, its runs let end in between), so both see the same machine. Prints the figures
// as JSON, and exits 1 when a bound is missed.
//
//   npx tsx scripts/bench/tenantFlood.ts
//
// FLOOD_KINDS=threads,runs,store (which requests A sends), FLOOD_KEYLESS=0, FLOOD_CONNECTIONS,
// FLOOD_ROUNDS (5), FLOOD_WINDOW_MS (2000), FLOOD_RATE (AGENTPLANE_MAX_REQUESTS_PER_SECOND),
// FLOOD_IN_MEMORY=1 (the store in memory, not in a temporary data directory),
// FLOOD_PRIORITY=-10 (this process's main thread above the machine's other work: on a shared
// machine a process that has work loses the CPU to others, and B's tail is then the machine's).
// Not a test yet: B's p99 was 3-12x its quiet figure here; docs/security.md says what was seen
// (the machine, and the embedded store's work for A's writes blocking the loop ~100 ms).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestServer, type TestServer } from '../../test/support/server.ts';
import { testProject } from '../../test/fixtures/agent-server/project.ts';
import { startFlood, type FloodKind, type FloodReport } from './floodClient.ts';

/** How long each of A's runs lasts: B's run may wait at most this long more than alone. */
const RUN_MS = 1_000;
const B_RUN_MS = 200;
const WINDOW_MS = Number(process.env.FLOOD_WINDOW_MS ?? 2_000);
const ROUNDS = Number(process.env.FLOOD_ROUNDS ?? 5);

const keyA = `key-a-${randomUUID()}`;
const keyB = `key-b-${randomUUID()}`;
if (process.env.FLOOD_PRIORITY) os.setPriority(Number(process.env.FLOOD_PRIORITY));
const server: TestServer = await startTestServer({
  dataDir: process.env.FLOOD_IN_MEMORY ? null : 'temp',
  project: testProject,
  env: {
    AGENTPLANE_AGENT_SERVER_AUTH: '1',
    AGENTPLANE_API_KEYS: `${keyA}:${randomUUID()},${keyB}:${randomUUID()}`,
    ...(process.env.FLOOD_RATE ? { AGENTPLANE_MAX_REQUESTS_PER_SECOND: process.env.FLOOD_RATE, AGENTPLANE_MAX_REQUEST_BURST: process.env.FLOOD_RATE } : {}),
  },
});
const threadB = ((await (await asB('POST', '/threads', {})).json()) as { thread_id: string }).thread_id;

function asB(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': keyB, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How often B reads: a client well within any tenant's rate. */
const B_READ_EVERY_MS = 25;

/** B's reads of its thread for `ms`, one every B_READ_EVERY_MS: each one's latency. */
async function readLatencies(ms: number): Promise<number[]> {
  const latencies: number[] = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    const res = await asB('GET', `/threads/${threadB}`);
    await res.arrayBuffer();
    assert.equal(res.status, 200, 'B was refused');
    const took = performance.now() - started;
    latencies.push(took);
    await sleep(Math.max(0, B_READ_EVERY_MS - took));
  }
  return latencies;
}

/** How long B's run takes, from its creation to its result. */
async function runLatency(): Promise<number> {
  const started = performance.now();
  const res = await asB('POST', `/threads/${threadB}/runs/wait`, { assistant_id: 'slow', input: { messages: [] }, context: { delay_ms: B_RUN_MS } });
  await res.arrayBuffer();
  assert.equal(res.status, 200, 'B was refused');
  return performance.now() - started;
}

/** CPU time this process (the server and B) spent, in ms. */
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))];
const fixed = (ms: number) => Math.round(ms * 10) / 10;

/** A's runs pending or running (each stateless run's thread is busy until it ends). */
async function busyOfA(): Promise<number> {
  const res = await fetch(`${server.url}/threads/count`, {
    method: 'POST',
    headers: { 'x-api-key': keyA, 'content-type': 'application/json' },
    body: JSON.stringify({ status: 'busy' }),
  });
  return res.status === 200 ? ((await res.json()) as number) : Infinity;
}

const flood = await startFlood({
  url: server.url,
  key: keyA,
  connections: Number(process.env.FLOOD_CONNECTIONS ?? 32),
  keylessSockets: Number(process.env.FLOOD_KEYLESS ?? 64),
  runMs: RUN_MS,
  kinds: process.env.FLOOD_KINDS ? (process.env.FLOOD_KINDS.split(',') as FloodKind[]) : undefined,
});
// warm both paths
await readLatencies(500);
await runLatency();
// quiet and flooded spells alternate, so both see the same machine: B's reads and runs in each
const idleReads: number[] = [];
const floodReads: number[] = [];
const idleRuns: number[] = [];
const floodRuns: number[] = [];
let idleCpu = 0;
let floodCpu = 0;
let floodMs = 0;
let report: FloodReport;
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
try {
  for (let round = 0; round < ROUNDS; round++) {
    let cpu = cpuMs();
    idleReads.push(...(await readLatencies(WINDOW_MS)));
    idleCpu += cpuMs() - cpu;
    idleRuns.push(await runLatency());
    await flood.resume();
    loopDelay.enable();
    cpu = cpuMs();
    const started = performance.now();
    // the flood's first burst passes, then B is measured while A keeps on
    await sleep(300);
    floodReads.push(...(await readLatencies(WINDOW_MS)));
    floodRuns.push(await runLatency());
    loopDelay.disable();
    await flood.pause();
    floodCpu += cpuMs() - cpu;
    floodMs += performance.now() - started;
    // A's runs end before the next quiet spell
    const until = performance.now() + 60_000;
    while ((await busyOfA()) > 0 && performance.now() < until) await sleep(200);
  }
} finally {
  report = await flood.stop();
}
// what A's flood cost the server, beyond what B's reads cost it quiet
const idleCpuPerMs = idleCpu / (ROUNDS * WINDOW_MS);
const admitted = Object.entries(report.statuses).reduce((n, [status, count]) => n + (/^2/.test(status) ? count : 0), 0);
const aCpu = floodCpu - idleCpuPerMs * floodMs;
const idleP99 = p99(idleReads);
const floodP99 = p99(floodReads);
const idleRun = Math.max(...idleRuns);
const floodRun = Math.max(...floodRuns);
const figures = {
  idle_p99_ms: fixed(idleP99),
  flood_p99_ms: fixed(floodP99),
  ratio: fixed(floodP99 / idleP99),
  idle_p50_ms: fixed(p50(idleReads)),
  flood_p50_ms: fixed(p50(floodReads)),
  idle_reads: idleReads.length,
  flood_reads: floodReads.length,
  idle_run_ms: fixed(idleRun),
  flood_run_ms: fixed(floodRun),
  a_answers: report.statuses,
  a_cpu_ms_per_admitted: fixed(aCpu / Math.max(1, admitted)),
  a_cpu_share: fixed((aCpu / floodMs) * 100),
  keyless_refused: report.keylessRefused,
  flood_loop_delay_p99_ms: fixed(loopDelay.percentile(99) / 1e6),
  details: report.details,
};
console.log(JSON.stringify(figures, null, 2));
const missed = [
  ...(floodP99 <= 1.5 * idleP99 ? [] : [`B's p99 went from ${fixed(idleP99)} ms quiet to ${fixed(floodP99)} ms under A's flood (bound 1.5x)`]),
  ...(floodRun <= idleRun + RUN_MS
    ? []
    : [`B's run took ${fixed(floodRun)} ms under A's flood, ${fixed(idleRun)} ms quiet (bound: one run, ${RUN_MS} ms, more)`]),
];
for (const line of missed) console.log(line);
await server.close();
process.exit(missed.length > 0 || admitted === 0 ? 1 : 0);
