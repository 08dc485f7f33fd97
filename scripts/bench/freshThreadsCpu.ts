// `npx tsx scripts/bench/freshThreadsCpu.ts <other tree|-> [rounds] [client…]` (issue 86): the fresh
// phase's 100-thread scenario (freshPeer.ts: a fresh server, the same untimed warm-up, then 1,000
// LangGraph echo runs over 100 threads through the SDK) on this tree and another built tree (a copy
// of a baseline's checkout with its dist/; `-` for none; `<tree>@<flag>,<flag>` runs it with those node flags or NAME=value environment variables, `.` being this tree), in alternating rounds, each round a
// fresh server per tree. Beside runs/s it prints what every thread of the machine's work used per
// run, read from /proc/<pid>/task/*/schedstat over the timed part (on a shared 2-core machine the
// least moved figure): the server's main thread, its two busiest other threads (the run workers),
// the rest of its threads together (V8's compiler and GC helpers, libuv's pool), and the client
// (this process: the SDK's requests). `client…`: `64` (callerOptions.maxConcurrency 64, the
// default) and/or `default` (the SDK's client as it comes). LangGraph alone on the same graph
// takes a turn in each round (graphAloneRunner.ts, its process's CPU per run), unless
// FRESH_CPU_ALONE=0. FRESH_CPU_PROFILE=<dir>: each server runs under `--cpu-prof` into it, and each
// of its threads' profiles is summed over the timed part of the first client's runs, by function
// (self time, µs a run, the top FRESH_CPU_TOP=30), the main thread first. FRESH_CPU_SCENARIO=one: the
// one-thread scenario (200 runs one after another) instead; FRESH_CPU_SCENARIO=bench-one: the bench's
// runs phase on one thread instead (runs.ts: its warm-up, then its one-thread round of 100 runs
// repeated FRESH_CPU_REPEAT times, default 5, on the same server, each round printed and kept apart:
// what a run costs as the thread's history grows, snapshots included). FRESH_CPU_THREADS=1: also each busy
// thread's share of a core over the timed part (near 1: that thread bounds runs/s) with the kernel's part of
// its CPU, the helpers one by one, and how long each busy thread was ready to run but waited for a core
// (schedstat's run delay) beside how much of the two cores sat idle: waits with idle cores beside them
// come from when the threads want the cores (bursts), not from how much they want; with it, how often
// each busy thread slept a run (its voluntary switches) and the main thread's write and read system
// calls a run. FRESH_CPU_TIMELINE=<dir>: every thread and the client sampled each 10 ms by a process of
// its own (threadTimeline.mjs), printed in 100-ms steps: where the round is bound by the client's
// creates and where by the run worker alone. FRESH_CPU_PIN=worker|split|pair: the experiment of holding
// the run worker on core 1 (and, with `split`, everything else on core 0; with `pair`, the server's main
// thread alone on core 0) over the timed part; `<tree>@BENCH_PIN=pair` pins that tree's servers only.
// `<tree>@BENCH_MEMORY_STORE=1`: that tree's servers serve from memory (no journal).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, flagsAndSettings, startAgentplane } from './agentplane.ts';
import { FRESH_ONE_THREAD_RUNS, FRESH_RUNS_PER_THREAD, FRESH_THREADS, FRESH_WARM_UP, sdkRuns, type FreshClient } from './freshPeer.ts';
import { graphAloneProcess } from './graphAlone.ts';
import { selfByFunction, type CpuProfile } from './flame.ts';
import { busyUs, within } from './profileWindow.ts';
import { BENCH_GRAPH, PLAIN_GRAPH } from './graph.ts';
import { ONE_THREAD_RUNS, WARM_UP } from './runs.ts';

const [otherArg = '-', roundsArg = '3', ...clientArgs] = process.argv.slice(2);
const rounds = Number(roundsArg);
const clients: FreshClient[] = (clientArgs.length ? clientArgs : ['64']).map((c) => (c === 'default' ? 'default client' : 'maxConcurrency 64'));
// `<tree>@<flag>,<flag>`: that tree's server with those node flags (`.@--no-parallel-scavenge`: this tree so)
const other = (() => {
  const [tree = '.', flags = ''] = otherArg.split('@');
  const root = tree === '.' ? ROOT : path.resolve(tree);
  // a flag NAME=value is an environment variable of the server's instead
  const list = flags ? flags.split(',') : [];
  return { name: `${tree === '.' ? 'this tree' : path.basename(root)}${flags ? ` ${flags}` : ''}`, root, ...flagsAndSettings(list) };
})();
const trees = [{ name: 'this tree', root: ROOT, flags: [] as string[], env: {} as Record<string, string> }, ...(otherArg === '-' ? [] : [other])];
const alone = process.env.FRESH_CPU_ALONE !== '0';
// FRESH_CPU_GRAPH=plain: the runs are of agentplane's plain-function echo (no LangGraph) instead of
// the shared LangGraph graph: what the server costs a run around a graph that costs next to nothing
const graph = process.env.FRESH_CPU_GRAPH === 'plain' ? PLAIN_GRAPH : BENCH_GRAPH;
// FRESH_CPU_SCENARIO=one: the fresh phase's one-thread scenario (its 200 runs one after another on one thread) instead of 100 threads
const benchOne = process.env.FRESH_CPU_SCENARIO === 'bench-one';
const [scenarioThreads, scenarioRuns] =
  process.env.FRESH_CPU_SCENARIO === 'one' ? [1, FRESH_ONE_THREAD_RUNS] : benchOne ? [1, ONE_THREAD_RUNS] : [FRESH_THREADS, FRESH_RUNS_PER_THREAD];
const warmUp = benchOne ? WARM_UP : FRESH_WARM_UP;
// FRESH_CPU_BEFORE=<threads>x<runs>,…: untimed rounds after the warm-up, before the timed part, each of
// `runs` runs on each of `threads` fresh threads (`1x200,1x200`: the bench's fresh phase's two one-thread
// rounds, which come before its 100-thread rounds on the same server); `<tree>@FRESH_BEFORE=1x200+1x200` for that tree's servers alone
const untimedRounds = (spec = ''): [number, number][] =>
  spec
    .split(/[,+]/)
    .filter(Boolean)
    .map((part) => part.split('x').map(Number) as [number, number]);
// FRESH_CPU_REPEAT=<n>: the scenario's round repeated n times on the same server (bench-one's default 5, else 1): how a
// server fares once its code is warm, beside a fresh one's first round
const repeats = Number(process.env.FRESH_CPU_REPEAT ?? (benchOne ? 5 : 1));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'fresh-threads-cpu-'));
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const profiles = process.env.FRESH_CPU_PROFILE;
const TOP = Number(process.env.FRESH_CPU_TOP ?? 30);
// a sample's time is the wall time since the one before: on a loaded machine that counts the time the
// thread waited for a core too; FRESH_CPU_CAP_US caps each sample's share (about the sampling
// interval: then the figures are nearer CPU time)
const CAP_US = Number(process.env.FRESH_CPU_CAP_US ?? Infinity);
const monoUs = () => Number(process.hrtime.bigint() / 1000n);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** schedstat's fields, by position: time on a core, time ready but waiting for one (both ns). */
const ON_CPU = 0;
const WAITING = 1;

/** `read` of each thread's /proc/<pid>/task/<tid>/<file>, by thread id (a thread that ended meanwhile left out). */
function eachThread<T>(pid: number, file: string, read: (text: string) => T): Map<number, T> {
  const out = new Map<number, T>();
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(task), read(fs.readFileSync(`/proc/${pid}/task/${task}/${file}`, 'utf8')));
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

/** Each thread's schedstat field `field` so far (ms), by thread id. */
function threadSchedstat(pid: number, field: typeof ON_CPU | typeof WAITING): Map<number, number> {
  return eachThread(pid, 'schedstat', (text) => Number(text.split(' ')[field]) / 1e6);
}

/** Each thread's CPU time so far (ms), by thread id. */
const threadCpu = (pid: number) => threadSchedstat(pid, ON_CPU);
/** Each thread's time so far ready to run but waiting for a core (ms), by thread id. */
const threadWaits = (pid: number) => threadSchedstat(pid, WAITING);

/** The machine's idle time so far over all its cores (ms; /proc/stat's idle and iowait, in ticks of 10 ms). */
function machineIdleMs(): number {
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  return (Number(cpu[4]) + Number(cpu[5])) * 10;
}

/** Each thread's /proc/<pid>/task/<tid>/stat fields after the name (field 3 first), by thread id. */
function threadStats(pid: number): Map<number, string[]> {
  return eachThread(pid, 'stat', (text) => text.slice(text.lastIndexOf(')') + 2).split(' '));
}

/** Each thread's sleeps so far (its voluntary context switches: each one a later wake that may wait for a core), by thread id. */
function threadSleeps(pid: number): Map<number, number> {
  return eachThread(pid, 'status', (text) => Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(text)?.[1] ?? 0));
}

/** The main thread's write and read system calls so far (/proc/<pid>/task/<pid>/io: syscw, syscr). */
function mainSyscalls(pid: number): { writes: number; reads: number } {
  const io = fs.readFileSync(`/proc/${pid}/task/${pid}/io`, 'utf8');
  return { writes: Number(/^syscw:\s+(\d+)/m.exec(io)?.[1] ?? 0), reads: Number(/^syscr:\s+(\d+)/m.exec(io)?.[1] ?? 0) };
}

/** Each thread's minor page faults so far (stat field 10), by thread id. */
const threadFaults = (stats: Map<number, string[]>): Map<number, number> => new Map([...stats].map(([tid, f]) => [tid, Number(f[7])]));
/** Each thread's CPU time in the kernel so far (stat field 15, stime, in clock ticks of 10 ms), by thread id. */
const threadSystem = (stats: Map<number, string[]>): Map<number, number> => new Map([...stats].map(([tid, f]) => [tid, Number(f[12]) * 10]));

interface Figure {
  runsPerSecond: number;
  /** Minor page faults a run (on this machine each is ~14 µs of fresh memory): the server's threads, the client. */
  faults?: { server: number; main: number; workers: number; client: number };
  /** ms a run, by part. */
  main: number;
  workers: [number, number];
  helpers: number;
  client: number;
  total: number;
}
const figures = new Map<string, Figure[]>();
const keep = (key: string, f: Figure) => figures.set(key, [...(figures.get(key) ?? []), f]);
const show = (f: Figure) =>
  `${f.runsPerSecond.toFixed(1)} runs/s; ms a run: main ${f.main.toFixed(2)}, workers ${f.workers.map((w) => w.toFixed(2)).join('+')}, helpers ${f.helpers.toFixed(2)}, client ${f.client.toFixed(2)}, all ${f.total.toFixed(2)}${f.faults ? `; page faults a run: server ${f.faults.server.toFixed(1)} (main ${f.faults.main.toFixed(1)}, workers ${f.faults.workers.toFixed(1)}), client ${f.faults.client.toFixed(1)}` : ''}`;

/**
 * FRESH_CPU_PERF=<dir>: `perf record` of the server over the timed part of its first client's
 * runs (on-CPU samples only, every thread, where a V8 profile charges a thread's waits for a core
 * to what was on its stack); the server runs with --perf-basic-prof so that perf can name its
 * JavaScript (read with `perf report -i <file> --sort pid,sym`, or perfThreads.ts).
 */
const perfDir = process.env.FRESH_CPU_PERF && path.resolve(process.env.FRESH_CPU_PERF);
function perfOf(pid: number, name: string): ChildProcess | undefined {
  if (!perfDir) return undefined;
  fs.mkdirSync(perfDir, { recursive: true });
  // FRESH_CPU_PERF_OFFCPU=1: each time a thread leaves its core (sched:sched_switch) with its stack instead: where a
  // thread that has work sleeps (read with `perf script`, the switches whose prev_state is S)
  const what = process.env.FRESH_CPU_PERF_OFFCPU === '1' ? ['-e', 'sched:sched_switch'] : ['-F', '1999'];
  return spawn('perf', ['record', '-q', ...what, '-g', '-p', String(pid), '-o', path.join(perfDir, `${name.replace(/\W+/g, '-')}.data`)], {
    stdio: 'ignore',
  });
}

/**
 * FRESH_CPU_PIN=worker|split|pair (an experiment, root only): over the timed part the run worker (the
 * server's busiest thread but its main one so far) is held on core 1; `split` holds every other
 * thread of the server and the client on core 0 too; `pair` holds the server's main thread alone
 * there. It bounds what the cores' sharing costs.
 */
function pinThreads(pid: number, how = process.env.FRESH_CPU_PIN): void {
  if (!how) return;
  const cpu = threadCpu(pid);
  const worker = [...cpu].filter(([tid]) => tid !== pid).sort((a, b) => b[1] - a[1])[0]![0];
  execFileSync('taskset', ['-p', '-c', '1', String(worker)], { stdio: 'ignore' });
  // `pair`: the server's main thread on core 0, so neither of the two takes the other's core
  if (how === 'pair') execFileSync('taskset', ['-p', '-c', '0', String(pid)], { stdio: 'ignore' });
  if (how !== 'split') return;
  for (const tid of [...cpu.keys(), ...fs.readdirSync(`/proc/${process.pid}/task`).map(Number)])
    if (tid !== worker) execFileSync('taskset', ['-p', '-c', '0', String(tid)], { stdio: 'ignore' });
}

const timelineDir = process.env.FRESH_CPU_TIMELINE && path.resolve(process.env.FRESH_CPU_TIMELINE);
function timelineOf(pid: number, name: string): { child: ChildProcess; file: string } | undefined {
  if (!timelineDir) return undefined;
  fs.mkdirSync(timelineDir, { recursive: true });
  const file = path.join(timelineDir, `${name.replace(/\W+/g, '-')}.json`);
  const script = path.join(ROOT, 'scripts/bench/threadTimeline.mjs');
  return { child: spawn(process.execPath, [script, String(pid), String(process.pid), '10', file], { stdio: 'inherit' }), file };
}

interface TimelineSample {
  t: number;
  server: Record<string, [number, number]>;
  client: Record<string, [number, number]>;
  idleMs: number;
}

/**
 * The timed part in 100-ms steps: each step's share of a core for the main thread, the busiest
 * other thread (the run worker), the server's other threads, the client, the worker's wait for a
 * core, and the machine's idle cores (of 2; /proc/stat counts in 10-ms ticks).
 */
function showTimeline(file: string, pid: number): void {
  const samples = JSON.parse(fs.readFileSync(file, 'utf8')) as TimelineSample[];
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const grew = (tid: string) => (last.server[tid]?.[0] ?? 0) - (first.server[tid]?.[0] ?? 0);
  const worker = Object.keys(last.server)
    .filter((tid) => tid !== String(pid))
    .sort((a, b) => grew(b) - grew(a))[0]!;
  const at = (s: TimelineSample, tid: string, field: 0 | 1) => s.server[tid]?.[field] ?? 0;
  const sum = (r: Record<string, [number, number]>, skip: string[] = []) => Object.entries(r).reduce((n, [tid, v]) => (skip.includes(tid) ? n : n + v[0]), 0);
  console.log(`  timeline (100 ms steps; share of a core: main, worker +${Number(worker) - pid}, worker's wait, other server threads, client; idle of 2):`);
  let from = first;
  const rows: string[] = [];
  for (const s of samples) {
    if (s.t - from.t < 100 && s !== last) continue;
    const ms = s.t - from.t;
    const share = (a: number, b: number) => ((a - b) / ms).toFixed(2);
    rows.push(
      `${(from.t - first.t).toFixed(0).padStart(5)} ${share(at(s, String(pid), 0), at(from, String(pid), 0))} ${share(at(s, worker, 0), at(from, worker, 0))} ${share(at(s, worker, 1), at(from, worker, 1))} ${share(sum(s.server, [String(pid), worker]), sum(from.server, [String(pid), worker]))} ${share(sum(s.client), sum(from.client))} ${share(s.idleMs, from.idleMs)}`,
    );
    from = s;
  }
  console.log(rows.map((r) => `    ${r}`).join('\n'));
}

function moveOut(from: string, to: string): void {
  if (!fs.existsSync(from)) return;
  fs.copyFileSync(from, to);
  fs.rmSync(from);
}

/** Each thread's profile of the window, by function: µs a run, the top TOP. */
function summarise(dir: string, fromUs: number, toUs: number, runs: number): void {
  for (const file of fs.readdirSync(dir).sort((a, b) => Number(/\.0\.\d+\.cpuprofile$/.test(b)) - Number(/\.0\.\d+\.cpuprofile$/.test(a)))) {
    const whole = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile & { startTime: number };
    const part = within(whole, fromUs, toUs, CAP_US);
    console.log(`  ${file} (window ${fromUs}–${toUs} µs, ${runs} runs): busy ${(busyUs(part) / runs).toFixed(0)} µs a run`);
    for (const [fn, us] of selfByFunction(part).slice(0, TOP)) console.log(`    ${(us / runs).toFixed(1).padStart(7)} ${fn}`);
  }
}

async function measureTree(tree: (typeof trees)[number], round: number): Promise<void> {
  const profileDir = profiles && path.join(path.resolve(profiles), `${round + 1}-${tree.name.replace(/\W+/g, '-')}`);
  const ap = await startAgentplane({
    // a tree given BENCH_MEMORY_STORE=1 serves from memory (`--memory`: no journal): what the journal's writes cost the round
    dataDir: tree.env.BENCH_MEMORY_STORE === '1' ? null : path.join(work, `data-${round}-${tree.name}`),
    workDir: path.join(work, `w-${round}-${tree.name}`),
    root: tree.root,
    env: tree.env,
    // FRESH_CPU_NODE_ARGS: more node flags for the server (space-separated)
    nodeArgs: [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(perfDir ? ['--perf-basic-prof'] : []),
      ...(process.env.FRESH_CPU_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      ...tree.flags,
    ],
  });
  // the timed part of the first client's runs, each repeat's (bench-one: summed apart)
  const windows: { fromUs: number; toUs: number; runs: number }[] = [];
  let perf: ChildProcess | undefined;
  try {
    const sdk = (client: FreshClient) =>
      new Client({
        apiUrl: ap.url,
        defaultHeaders: ap.headers,
        callerOptions: { maxRetries: 0, ...(client === 'maxConcurrency 64' ? { maxConcurrency: 64 } : {}) },
      });
    for (const [threads, perThread] of warmUp) await sdkRuns(sdk('default client'), graph, threads, perThread);
    for (const [threads, perThread] of untimedRounds(tree.env.FRESH_BEFORE ?? process.env.FRESH_CPU_BEFORE))
      await sdkRuns(sdk('default client'), graph, threads, perThread);
    for (let repeat = 0; repeat < repeats; repeat += 1)
      for (const client of round % 2 ? [...clients].reverse() : clients) {
        // the server's threads' CPU and fresh pages, and the client's, at the scenario's first create and last join
        const sample = () => ({
          threads: threadCpu(ap.pid),
          waits: threadWaits(ap.pid),
          sleeps: threadSleeps(ap.pid),
          syscalls: mainSyscalls(ap.pid),
          clientWait: threadWaits(process.pid).get(process.pid) ?? 0,
          idleMs: machineIdleMs(),
          ...(() => {
            const stats = threadStats(ap.pid);
            return { faults: threadFaults(stats), system: threadSystem(stats) };
          })(),
          clientFaults: process.resourceUsage().minorPageFault,
          client: process.cpuUsage(),
          monoUs: monoUs(),
        });
        // FRESH_CPU_TIMELINE=<dir>: every thread sampled each 10 ms over the timed part, by a process of its own
        let timeline: { child: ChildProcess; file: string } | undefined;
        let before: ReturnType<typeof sample> | undefined;
        let after: typeof before;
        const r = await sdkRuns(sdk(client), graph, scenarioThreads, scenarioRuns, {
          started: () => {
            pinThreads(ap.pid, tree.env.BENCH_PIN ?? process.env.FRESH_CPU_PIN);
            perf ??= perfOf(ap.pid, `${tree.name}-${round + 1}-${client}`);
            timeline ??= timelineOf(ap.pid, `${tree.name}-${round + 1}-${client}`);
            before = sample();
          },
          ended: () => {
            after = sample();
            perf?.kill('SIGINT');
            timeline?.child.kill('SIGTERM');
          },
        });
        if (client === (round % 2 ? [...clients].reverse() : clients)[0]) windows.push({ fromUs: before!.monoUs, toUs: after!.monoUs, runs: r.runs });
        if (r.failed) console.log(`  ${r.failed} runs not success`);
        if (timeline) {
          if (timeline.child.exitCode === null) await once(timeline.child, 'exit');
          showTimeline(timeline.file, ap.pid);
        }
        const used = [...after!.threads].map(([tid, ms]) => ({ tid, ms: ms - (before!.threads.get(tid) ?? 0) }));
        const main = used.find((u) => u.tid === ap.pid)!.ms;
        const others = used.filter((u) => u.tid !== ap.pid).sort((a, b) => b.ms - a.ms);
        const workers = others.slice(0, 2).map((u) => u.ms / r.runs) as [number, number];
        const helpers = others.slice(2).reduce((n, u) => n + u.ms, 0) / r.runs;
        const clientMs = (after!.client.user + after!.client.system - before!.client.user - before!.client.system) / 1000 / r.runs;
        const f: Figure = {
          runsPerSecond: r.runs / r.seconds,
          main: main / r.runs,
          workers,
          helpers,
          client: clientMs,
          total: main / r.runs + workers[0] + workers[1] + helpers + clientMs,
          faults: {
            server: [...after!.faults].reduce((n, [tid, c]) => n + c - (before!.faults.get(tid) ?? 0), 0) / r.runs,
            main: ((after!.faults.get(ap.pid) ?? 0) - (before!.faults.get(ap.pid) ?? 0)) / r.runs,
            workers: others.slice(0, 2).reduce((n, u) => n + (after!.faults.get(u.tid) ?? 0) - (before!.faults.get(u.tid) ?? 0), 0) / r.runs,
            client: (after!.clientFaults - before!.clientFaults) / r.runs,
          },
        };
        keep(`${tree.name} | ${client}${repeats > 1 ? ` | round on the server ${repeat + 1}` : ''}`, f);
        console.log(`round ${round + 1}${repeats > 1 ? `.${repeat + 1}` : ''} ${tree.name} (${client}): ${show(f)}; load ${load()}`);
        // the helpers one by one, by their id's offset from the process's (the order they started: V8's platform threads first, then libuv's pool)
        if (process.env.FRESH_CPU_THREADS === '1') {
          // how busy each thread was over the timed part (a share of one core: near 1, the thread bounds runs/s), and how much of its CPU was the kernel's
          const wallMs = (after!.monoUs - before!.monoUs) / 1000;
          const kernel = (tid: number) =>
            ((after!.system.get(tid) ?? 0) - (before!.system.get(tid) ?? 0)) / Math.max(1e-9, used.find((u) => u.tid === tid)!.ms);
          const clientCore = (clientMs * r.runs) / wallMs;
          const busiest = others
            .slice(0, 2)
            .map((u) => `+${u.tid - ap.pid} ${(u.ms / wallMs).toFixed(2)} (kernel ${(100 * kernel(u.tid)).toFixed(0)}%)`)
            .join(', ');
          const rest = `helpers ${((helpers * r.runs) / wallMs).toFixed(2)}, client ${clientCore.toFixed(2)}; all ${((f.total * r.runs) / wallMs).toFixed(2)} of 2`;
          const waited = (tid: number) => ((after!.waits.get(tid) ?? 0) - (before!.waits.get(tid) ?? 0)) / wallMs;
          console.log(
            `  share of the time waiting for a core: main ${waited(ap.pid).toFixed(2)}, ${others
              .slice(0, 2)
              .map((u) => `+${u.tid - ap.pid} ${waited(u.tid).toFixed(2)}`)
              .join(
                ', ',
              )}, client ${((after!.clientWait - before!.clientWait) / wallMs).toFixed(2)}; the machine's cores idle ${((after!.idleMs - before!.idleMs) / wallMs).toFixed(2)} of 2`,
          );
          console.log(
            `  the main thread's system calls a run: ${((after!.syscalls.writes - before!.syscalls.writes) / r.runs).toFixed(2)} writes, ${((after!.syscalls.reads - before!.syscalls.reads) / r.runs).toFixed(2)} reads`,
          );
          // sleeps a run and the mean wait for a core a wake: few sleeps with long waits are a busy thread preempted, not slow wakes
          const sleeps = (tid: number) => (after!.sleeps.get(tid) ?? 0) - (before!.sleeps.get(tid) ?? 0);
          const perWake = (tid: number) =>
            `${(sleeps(tid) / r.runs).toFixed(2)} (${((1000 * waited(tid) * wallMs) / Math.max(1, sleeps(tid))).toFixed(0)} µs waited a wake)`;
          console.log(
            `  sleeps a run: main ${perWake(ap.pid)}, ${others
              .slice(0, 2)
              .map((u) => `+${u.tid - ap.pid} ${perWake(u.tid)}`)
              .join(', ')}`,
          );
          console.log(`  share of a core: main ${(main / wallMs).toFixed(2)} (kernel ${(100 * kernel(ap.pid)).toFixed(0)}%), ${busiest}, ${rest}`);
          console.log(
            `  helpers by thread: ${others
              .slice(2)
              .filter((u) => u.ms / r.runs >= 0.01)
              .map((u) => `+${u.tid - ap.pid} ${(u.ms / r.runs).toFixed(2)}`)
              .join(', ')}`,
          );
        }
      }
  } finally {
    await ap.stop();
    // the JIT's symbol map node wrote for perf (/tmp/perf-<pid>.map) goes beside the record: put
    // it back in /tmp to name the JavaScript in `perf report`
    if (perfDir) moveOut(`/tmp/perf-${ap.pid}.map`, path.join(perfDir, `perf-${ap.pid}.map`));
  }
  if (profileDir) for (const w of windows) summarise(profileDir, w.fromUs, w.toUs, w.runs);
}

for (let round = 0; round < rounds; round += 1) {
  for (const tree of round % 2 ? [...trees].reverse() : trees) await measureTree(tree, round);
  if (alone) {
    const measured = await graphAloneProcess({ warmUp: FRESH_WARM_UP, oneThreadRuns: 1, runsPerThread: FRESH_RUNS_PER_THREAD, rounds: 1 });
    const many = measured.many[0]!;
    const f = { runsPerSecond: many.runs / many.seconds, cpuMs: many.cpuMs };
    console.log(
      `round ${round + 1} LangGraph alone: ${f.runsPerSecond.toFixed(1)} runs/s${f.cpuMs === undefined ? '' : `, ${(f.cpuMs / many.runs).toFixed(2)} ms of its process a run`}; load ${load()}`,
    );
    keep('LangGraph alone', { runsPerSecond: f.runsPerSecond, main: 0, workers: [0, 0], helpers: 0, client: 0, total: (f.cpuMs ?? 0) / many.runs });
  }
}
fs.rmSync(work, { recursive: true, force: true });
console.log('medians:');
for (const [key, fs_] of figures) {
  const m = (pick: (f: Figure) => number) => median(fs_.map(pick));
  console.log(
    `  ${key}: ${m((f) => f.runsPerSecond).toFixed(1)} runs/s; ms a run: main ${m((f) => f.main).toFixed(2)}, workers ${m((f) => f.workers[0] + f.workers[1]).toFixed(2)}, helpers ${m((f) => f.helpers).toFixed(2)}, client ${m((f) => f.client).toFixed(2)}, all ${m((f) => f.total).toFixed(2)}${fs_[0]!.faults ? `; page faults a run: server ${m((f) => f.faults!.server).toFixed(1)} (main ${m((f) => f.faults!.main).toFixed(1)}, workers ${m((f) => f.faults!.workers).toFixed(1)}), client ${m((f) => f.faults!.client).toFixed(1)}` : ''}`,
  );
}
console.log(`load ${load()}`);
