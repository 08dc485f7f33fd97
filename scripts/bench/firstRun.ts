// `npx tsx scripts/bench/firstRun.ts [starts] [tree...]`: issue 89's "the first run's first token
// comes within 1.5x of the later runs'". Each start is a default `npm start` (`node
// bin/agentplane.js serve` in the tree, its own agentplane.json, no settings but a free PORT and a
// fresh DATA_DIR), left alone FIRST_RUN_SETTLE_MS (3 s) after its /ok and then until it idles (its
// processes used under a twentieth of a core over half a second: on a loaded machine the warm-up
// of a start may take longer than the settling time, and a run sent before it ended measures the
// warm-up, not the first run; the wait is printed as "idle after"), then sent FIRST_RUN_RUNS
// (6) runs of the shipped `agent` graph one after another, each on a new thread as a chat client
// does (POST /threads, then runs/stream in messages-tuple mode), timing the first `event: messages`
// of each. A start's ratio is its first run over the median of its later ones; printed are each
// start's times, the median ratio over the starts and the worst, /ok's time from spawn, and the
// load average (figures on a shared machine mean little without it). On Linux each run's CPU in
// the server (every thread's, from /proc/<pid>/task/*/schedstat: exact for threads that wait,
// read 20 ms after the run's stream ended) is printed too, with the same ratio: what the first
// run computes more than the next ones, which the other processes of a busy machine do not move
// as they move the times.
//
// Several trees (a checkout of a baseline, each with its node_modules) are started in turns, the
// order flipped every round, so that both see the same moments of the machine; a tree given as
// `<tree>@<module.mjs>` is started with that module preloaded (--import), beside the tree alone
// (`firstRun.ts 7 . .@scripts/bench/firstRunHelpersNice.mjs`: one tree with and without). The server is a
// child of this process: it runs at the same nice level as the client (run the whole under
// `nice` to lower both). FIRST_RUN_NODE_ARGS go before bin/agentplane.js (e.g. `--cpu-prof
// --cpu-prof-dir=/tmp/prof`), and FIRST_RUN_WINDOWS names a file to write each run's moments into
// (request sent, first token, end; µs of the monotonic clock a CPU profile's times are on; and
// the moment it was sent in ms since the epoch, as the log's lines' times). Printed last for each
// tree is the criterion's own noise: each later run's ratio against the median of the other later
// runs of its start, as if it had been the first.
// FIRST_RUN_THREADS=1 prints each run's CPU by thread (the main thread as `main`, the others by
// id: the run worker is the one besides main that uses most) and, for each tree, the run worker's CPU spread over the later runs
// and each run number's first token and CPU by thread (medians over the starts); FIRST_RUN_OUTPUT one to append each server's output to; FIRST_RUN_GAP_MS spaces the runs;
// FIRST_RUN_SERVER_ARGS go after `serve` (`--config other.json`), FIRST_RUN_ENV is set in the servers' environment
// (`LOG_LEVEL=debug`); FIRST_RUN_BEFORE=<graph>:<n>
// sends n runs of another graph before the measured ones (what a start's first run would take
// with the run path warmed by real runs, but not the measured graph's own code);
// FIRST_RUN_CLIENT=sdk makes the threads and streams with `@langchain/langgraph-sdk`'s Client, as
// users run it (a new Client for each start, its first token its first `messages` chunk; the
// SDK's code warmed on the bare server as the bench's own is), in place of the bench's fetch (its
// server CPU per run then holds the thread's creation too). FIRST_RUN_GC=1 has every thread of the
// servers write each of V8's collections (firstRunGc.mjs, preloaded) and prints, for each run, those
// that began inside it by thread (before its first token or after), with the young generation's
// capacity after each: which runs a scavenge falls in, which the machine's load does not decide.
import { Client } from '@langchain/langgraph-sdk';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'node:http';
import { ROOT } from './graph.ts';
import { delay, freePort, startChild } from './proc.ts';
import { processCpuPrecise } from './routeCpu.ts';
import { refuseStaleBuild } from './builtTree.ts';

const starts = Number(process.argv[2] ?? 5);
const trees = (process.argv.length > 3 ? process.argv.slice(3) : [ROOT]).map((spec) => {
  const [dir, preload] = spec.split('@');
  return path.resolve(dir) + (preload ? `@${path.resolve(preload)}` : '');
});
/** A tree's directory, the module preloaded into its servers (if any), and the name it is printed by. */
const dirOf = (tree: string) => tree.split('@')[0];
const preloadOf = (tree: string) => tree.split('@')[1] as string | undefined;
const nameOf = (tree: string) => path.basename(dirOf(tree)) + (preloadOf(tree) ? `@${path.basename(preloadOf(tree)!, '.mjs')}` : '');
const RUNS = Number(process.env.FIRST_RUN_RUNS ?? 6);
const SETTLE_MS = Number(process.env.FIRST_RUN_SETTLE_MS ?? 3_000);
const GAP_MS = Number(process.env.FIRST_RUN_GAP_MS ?? 0);
const NODE_ARGS = process.env.FIRST_RUN_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const SERVER_ARGS = process.env.FIRST_RUN_SERVER_ARGS?.split(' ').filter(Boolean) ?? [];
const [BEFORE_GRAPH, BEFORE_RUNS] = (process.env.FIRST_RUN_BEFORE ?? ':0').split(':');
const INPUT = { messages: [{ role: 'user', content: 'what is 2 * 3?' }] };
const SDK = process.env.FIRST_RUN_CLIENT === 'sdk';

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

const WINDOWS = process.env.FIRST_RUN_WINDOWS;
const THREADS = process.env.FIRST_RUN_THREADS === '1';
const COVERAGE = process.env.FIRST_RUN_COVERAGE;
const COVERAGE_PRELOAD = path.join(import.meta.dirname, 'firstRunCoverage.mjs');
const GC = process.env.FIRST_RUN_GC === '1';
const GC_PRELOAD = path.join(import.meta.dirname, 'firstRunGc.mjs');
const OUTPUT = process.env.FIRST_RUN_OUTPUT;
const windows: { round: number; run: number; sent: number; first: number; end: number; sentAt?: number }[] = [];
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** Milliseconds from sending `init` to `url` until the body holds `until` (NaN if it never does); the body is read to its end. */
async function timeTo(url: string, init: RequestInit, until: RegExp, moments?: { sent: number; first: number; end: number; sentAt?: number }): Promise<number> {
  const started = performance.now();
  if (moments) [moments.sent, moments.sentAt] = [monotonicUs(), Date.now()];
  const res = await fetch(url, init);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let first = NaN;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (Number.isNaN(first) && until.test(text)) {
      first = performance.now() - started;
      if (moments) moments.first = monotonicUs();
    }
  }
  if (moments) moments.end = monotonicUs();
  return first;
}

/** One run through the SDK's Client on a new thread: ms from asking for the stream to its first `messages` chunk, the stream read to its end. */
async function sdkTimeTo(client: Client, moments?: { sent: number; first: number; end: number; sentAt?: number }): Promise<number> {
  const thread = await client.threads.create();
  const started = performance.now();
  if (moments) [moments.sent, moments.sentAt] = [monotonicUs(), Date.now()];
  let first = NaN;
  for await (const chunk of client.runs.stream(thread.thread_id, 'agent', { input: INPUT, streamMode: ['messages-tuple'] })) {
    if (Number.isNaN(first) && chunk.event === 'messages') {
      first = performance.now() - started;
      if (moments) moments.first = monotonicUs();
    }
  }
  if (moments) moments.end = monotonicUs();
  return first;
}

const post = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/**
 * The client's own first use of fetch, a streamed body and the decoder, paid before any start on
 * a bare SSE server of its own: otherwise the first run's time holds the client's warm-up too.
 */
async function warmClient(): Promise<void> {
  const bare = createServer((req, res) => {
    req.resume();
    if (req.url === '/threads') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"thread_id":"t"}');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: metadata\ndata: {}\n\n');
    setTimeout(() => res.end('event: messages\ndata: {}\n\n'), 5);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const { port } = bare.address() as { port: number };
  for (let i = 0; i < 30; i++) await timeTo(`http://127.0.0.1:${port}/x`, post({}), /event: messages/);
  if (SDK) {
    const client = new Client({ apiUrl: `http://127.0.0.1:${port}`, callerOptions: { maxRetries: 0 } });
    for (let i = 0; i < 30; i++) await sdkTimeTo(client);
  }
  bare.close();
}

/** Waits until `cpu()` (CPU seconds) grows by under a twentieth of a core over half a second; says how long that took (ms). */
async function idle(cpu: () => number): Promise<number> {
  const started = performance.now();
  let last = cpu();
  for (;;) {
    await delay(500);
    const now = cpu();
    if (now - last < 0.025 || performance.now() - started > 30_000) return performance.now() - started;
    last = now;
  }
}

/** Has every thread of the server write its coverage so far (firstRunCoverage.mjs), and waits for the writing to be over. */
async function takeCoverage(pid: number): Promise<void> {
  process.kill(pid, 'SIGUSR2');
  await delay(1_500);
  await idle(() => threadsCpuMs(pid) / 1000);
}

/** CPU milliseconds each of the process's threads has used, by thread id (empty where /proc is not). */
function perThreadCpuMs(pid: number): Map<string, number> {
  const threads = new Map<string, number>();
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        threads.set(task, Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
      } catch {
        /* the thread ended meanwhile */
      }
    }
  } catch {
    /* no /proc */
  }
  return threads;
}

/** What each thread used between two readings (ms), the main thread named `main`, those that used under 0.3 ms left out, those that ended named so. */
function threadDeltas(pid: number, before: Map<string, number>, after: Map<string, number>): Record<string, number> {
  const deltas: Record<string, number> = {};
  for (const [task, ms] of after) {
    const used = ms - (before.get(task) ?? 0);
    if (used >= 0.3) deltas[task === String(pid) ? 'main' : task] = Math.round(used * 10) / 10;
  }
  // a thread that ended meanwhile (a worker terminated during the run): what it used is not known
  for (const task of before.keys()) if (!after.has(task)) deltas[`${task} (ended)`] = NaN;
  return deltas;
}

/** The process's minor page faults so far (/proc/<pid>/stat, field 10; NaN where /proc is not): fresh memory touched, ~14 µs a page on a machine that gives freed pages back to its host. */
function pageFaults(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]);
  } catch {
    return NaN;
  }
}

/** CPU milliseconds the process's threads have used (NaN where /proc is not). */
function threadsCpuMs(pid: number): number {
  try {
    return processCpuPrecise(pid) * 1000;
  } catch {
    return NaN;
  }
}

interface Start {
  okMs: number;
  idleMs: number;
  cpu: number[];
  cpuRatio: number;
  /** The server's minor page faults in each run. */
  faults: number[];
  runs: number[];
  ratio: number;
  /** FIRST_RUN_THREADS: each run's CPU by thread. */
  threads: Record<string, number>[];
}

async function oneStart(tree: string, round: number): Promise<Start> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `first-run-${round}-`));
  const port = await freePort();
  const env: Record<string, string | undefined> = { PORT: String(port), DATA_DIR: dataDir };
  // no settings: none of the bench's own environment that the server reads
  for (const name of Object.keys(process.env)) if (/^(AGENTPLANE_|LANG(SMITH|CHAIN)_|OTEL_|LOG_)|^NODE_ENV$|^DATABASE_URL$/.test(name)) env[name] = undefined;
  if (COVERAGE) env.NODE_V8_COVERAGE = path.join(path.resolve(COVERAGE), `${nameOf(tree)}-${round + 1}`);
  for (const assignment of process.env.FIRST_RUN_ENV?.split(' ').filter(Boolean) ?? [])
    env[assignment.split('=')[0]] = assignment.slice(assignment.indexOf('=') + 1);
  await refuseStaleBuild(dirOf(tree));
  const server = await startChild({
    name: `agentplane (${tree})`,
    command: process.execPath,
    args: [
      ...NODE_ARGS,
      ...(COVERAGE ? ['--import', COVERAGE_PRELOAD] : []),
      ...(GC ? ['--import', GC_PRELOAD] : []),
      ...(preloadOf(tree) ? ['--import', preloadOf(tree)!] : []),
      'bin/agentplane.js',
      'serve',
      ...SERVER_ARGS,
    ],
    cwd: dirOf(tree),
    env,
    port,
    probePath: '/ok',
  });
  try {
    await delay(SETTLE_MS);
    for (let i = 0; i < Number(BEFORE_RUNS); i++) {
      const thread = (await (await fetch(`${server.url}/threads`, post({}))).json()) as { thread_id: string };
      await timeTo(
        `${server.url}/threads/${thread.thread_id}/runs/stream`,
        post({ assistant_id: BEFORE_GRAPH, input: INPUT, stream_mode: ['messages-tuple'] }),
        /^event: messages/m,
      );
    }
    const idleMs = await idle(server.cpu);
    const runs: number[] = [];
    const cpu: number[] = [];
    const threads: Record<string, number>[] = [];
    const faults: number[] = [];
    const runWindows: (typeof windows)[number][] = [];
    const client = SDK ? new Client({ apiUrl: server.url, callerOptions: { maxRetries: 0 } }) : undefined;
    for (let i = 0; i < RUNS; i++) {
      if (i > 0) await delay(GAP_MS);
      const thread = client ? undefined : ((await (await fetch(`${server.url}/threads`, post({}))).json()) as { thread_id: string });
      const url = `${server.url}/threads/${thread?.thread_id}/runs/stream`;
      const moments = { round, run: i + 1, sent: 0, first: 0, end: 0 };
      if (COVERAGE && i < 2) await takeCoverage(server.pid);
      const cpuBefore = threadsCpuMs(server.pid);
      const faultsBefore = pageFaults(server.pid);
      const threadsBefore = THREADS ? perThreadCpuMs(server.pid) : undefined;
      runs.push(
        client
          ? await sdkTimeTo(client, moments)
          : await timeTo(url, post({ assistant_id: 'agent', input: INPUT, stream_mode: ['messages-tuple'] }), /^event: messages/m, moments),
      );
      windows.push(moments);
      runWindows.push(moments);
      await delay(20);
      cpu.push(threadsCpuMs(server.pid) - cpuBefore);
      faults.push(pageFaults(server.pid) - faultsBefore);
      if (threadsBefore) threads.push(threadDeltas(server.pid, threadsBefore, perThreadCpuMs(server.pid)));
      if (threadsBefore) console.log(`  run ${i + 1}: ${JSON.stringify(threads.at(-1))}`);
    }
    if (GC) printRunCollections(server.output(), runWindows);
    return { okMs: server.startMs, idleMs, runs, ratio: runs[0] / median(runs.slice(1)), cpu, cpuRatio: cpu[0] / median(cpu.slice(1)), faults, threads };
  } finally {
    await server.stop();
    if (OUTPUT) fs.appendFileSync(OUTPUT, server.output());
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await warmClient();
const results = new Map<string, Start[]>(trees.map((t) => [t, []]));
console.log(`${starts} starts of ${trees.length} tree(s), ${RUNS} runs each; load average ${load()}`);
for (let round = 0; round < starts; round++) {
  for (const tree of round % 2 === 0 ? trees : [...trees].reverse()) {
    const start = await oneStart(tree, round);
    results.get(tree)!.push(start);
    const ms = start.runs.map((r) => r.toFixed(1)).join(' ');
    const cpu = start.cpu.map((c) => c.toFixed(1)).join(' ');
    console.log(
      `${nameOf(tree)} #${round + 1}: /ok ${Math.round(start.okMs)} ms, idle after ${Math.round(SETTLE_MS + start.idleMs)} ms more; ` +
        `first tokens ${ms} ms, ratio ${start.ratio.toFixed(2)}; server CPU per run ${cpu} ms, ratio ${start.cpuRatio.toFixed(2)}; page faults per run ${start.faults.join(' ')}; load ${load()}`,
    );
  }
}
for (const [tree, list] of results) {
  const ratios = list.map((s) => s.ratio);
  const cpuRatios = list.map((s) => s.cpuRatio);
  console.log(
    `${nameOf(tree)}: first token ratio median ${median(ratios).toFixed(2)}, worst ${Math.max(...ratios).toFixed(2)}; first run median ${median(list.map((s) => s.runs[0])).toFixed(1)} ms, ` +
      `later runs median ${median(list.flatMap((s) => s.runs.slice(1))).toFixed(1)} ms; server CPU ratio median ${median(cpuRatios).toFixed(2)}, worst ${Math.max(...cpuRatios).toFixed(2)}; ` +
      `/ok median ${Math.round(median(list.map((s) => s.okMs)))} ms; page faults, first run median ${median(list.map((s) => s.faults[0]))}, later runs median ${median(list.flatMap((s) => s.faults.slice(1)))}`,
  );
  // the criterion's own noise: each later run's ratio against the median of the others of its
  // start, as if it had been the first (what a first run like the later ones would measure)
  const alike = list.flatMap((s) => s.runs.slice(1).map((r, i, later) => r / median(later.filter((_, j) => j !== i))));
  const over = alike.filter((r) => r > 1.5).length;
  console.log(
    `${nameOf(tree)}: a later run taken as the first: ratio median ${median(alike).toFixed(2)}, worst ${Math.max(...alike).toFixed(2)}, over 1.5 in ${over} of ${alike.length} ` +
      `(a first run like the later ones keeps every one of ${list.length} starts within 1.5x with a chance of ~${((1 - over / alike.length) ** list.length).toFixed(2)})`,
  );
}
for (const [tree, list] of results) if (THREADS) printWorkerSpread(nameOf(tree), list);
for (const [tree, list] of results) if (THREADS) printByRunNumber(nameOf(tree), list);
console.log(`load average ${load()}`);
if (WINDOWS) fs.writeFileSync(WINDOWS, JSON.stringify(windows, null, 1));

interface Collection {
  thread: number;
  at: number;
  ms: number;
  kind: string;
  forced: boolean;
  newSpaceMb: number;
}

/**
 * FIRST_RUN_GC: for each run, the collections from the previous run's end (a second before it
 * for the first run) to its own end, by thread (t0 the main thread), those before it was sent
 * marked `~` and those between its sending and its first token `<`.
 */
function printRunCollections(output: string, runs: { sent: number; first: number; end: number; sentAt?: number }[]): void {
  const collections = [...output.matchAll(/^@@gc (.*)$/gm)].map((m) => JSON.parse(m[1]) as Collection);
  const epochMs = (run: (typeof runs)[number], us: number) => run.sentAt! + (us - run.sent) / 1000;
  runs.forEach((run, i) => {
    const from = i === 0 ? run.sentAt! - 1_000 : epochMs(runs[i - 1], runs[i - 1].end);
    const [first, end] = [epochMs(run, run.first), epochMs(run, run.end)];
    const said = collections
      .filter((c) => c.at > from && c.at <= end)
      .map((c) => {
        const mark = c.at < run.sentAt! ? '~' : c.at < first ? '<' : '';
        return `${mark}t${c.thread} ${c.kind}${c.forced ? ' (gc())' : ''} ${c.ms} ms, new space ${c.newSpaceMb} MB`;
      });
    console.log(`  run ${i + 1} collections: ${said.join('; ') || 'none'}`);
  });
}

/**
 * FIRST_RUN_THREADS: the run worker's CPU in each later run against the median of the others of
 * its start (a scavenge inside a run is 3-9 ms of it), and in the first run against the later
 * runs'. The worker is the thread besides main that used the most over the start's runs.
 */
function printWorkerSpread(name: string, list: Start[]): void {
  const spread: number[] = [];
  const first: number[] = [];
  for (const { threads } of list) {
    const worker = runWorkerOf(threads);
    if (worker === undefined || threads.length < 3) continue;
    const later = threads.slice(1).map((run) => run[worker] ?? 0);
    first.push((threads[0][worker] ?? 0) / median(later));
    spread.push(...later.map((ms, i) => ms / median(later.filter((_, j) => j !== i))));
  }
  if (spread.length === 0) return;
  console.log(
    `${name}: the run worker's CPU, first run over the later runs' median: median ${median(first).toFixed(2)}; a later run over the others': median ${median(spread).toFixed(2)}, ` +
      `over 1.2 in ${spread.filter((r) => r > 1.2).length} of ${spread.length}, worst ${Math.max(...spread).toFixed(2)}`,
  );
}

/** The thread besides main that used the most over a start's runs: the run worker. */
function runWorkerOf(threads: Record<string, number>[]): string | undefined {
  const totals = new Map<string, number>();
  for (const run of threads) for (const [id, ms] of Object.entries(run)) if (id !== 'main') totals.set(id, (totals.get(id) ?? 0) + ms);
  return [...totals].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * FIRST_RUN_THREADS: by the run's number since the start, medians over the starts of its first
 * token over its start's later runs' median, and of the CPU of the main thread, the run worker and
 * the others (V8's platform threads: TurboFan compiling what became hot, the collector's helpers),
 * whose work repeats run by run in every start: what a later run's bump lines up with.
 */
function printByRunNumber(name: string, list: Start[]): void {
  const columns = Math.min(...list.map((s) => s.runs.length));
  const row = (of: (start: Start, i: number) => number) =>
    Array.from({ length: columns }, (_, i) => median(list.map((start) => of(start, i))).toFixed(2)).join(' ');
  const others = (start: Start, i: number) => {
    const worker = runWorkerOf(start.threads);
    return Object.entries(start.threads[i] ?? {})
      .filter(([id]) => id !== 'main' && id !== worker)
      .reduce((sum, [, ms]) => sum + ms, 0);
  };
  console.log(`${name}: by run number (medians over ${list.length} starts)`);
  console.log(`  first token / later runs' median: ${row((start, i) => start.runs[i] / median(start.runs.slice(1)))}`);
  console.log(`  main thread CPU ms:               ${row((start, i) => start.threads[i]?.main ?? 0)}`);
  console.log(`  run worker CPU ms:                ${row((start, i) => start.threads[i]?.[runWorkerOf(start.threads) ?? ''] ?? 0)}`);
  console.log(`  other threads' CPU ms:            ${row(others)}`);
}
