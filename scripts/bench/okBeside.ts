// `npx tsx scripts/bench/okBeside.ts [tree] [rounds] [seconds] [subscribers]`: is the fan-out
// phase's `/ok` tail agentplane's main thread, or the machine (issue 87)? A bare `node:http`
// server answering `/ok` (fanoutCeiling.ts, which does nothing else until told to play) runs
// beside agentplane while agentplane's runs stream, as the phase drives them (20 threads of
// `run.start` then join, on the loop that times `/ok`), with `subscribers` reading them when
// given. `/ok` is asked of the two servers in alternation, one request after another, so both
// series share every moment of the machine and of the client: the bare server's p99 is what
// the machine and the client allow a server that does no work for the runs. The same pairs are
// taken by a second client of its own (a worker thread with nothing else on its loop), which
// says how much of either series is the driving client's own delay. Idle first, then under
// the runs; each round starts both servers fresh. `tree`: a git ref (built under .bench/) or `.`.
// `--workers-idle`: an experiment on the kernel's part, not a setting of agentplane: once the
// runs go, agentplane's run workers (its threads at a niceness above the main thread's: every
// thread of node 20 is named `node`) are put under SCHED_IDLE with `chrt`. At niceness 10 (schedulingPriority.ts) a run
// worker holding a core keeps it for the rest of its slice when the main thread wakes (EEVDF's
// run-to-parity; the next tick is up to 4 ms away at HZ=250), so with both cores busy with runs
// each wake of the server (and of the client) may wait that long; a SCHED_IDLE thread gives the
// core up at once.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ROOT } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { newThread, protocolRun, startBroadcaster, startFanoutServer } from './fanout.ts';
import { openSubscribers } from './fanoutSubscribers.ts';
import { BENCH_GRAPH } from './graph.ts';

const workersIdle = process.argv.includes('--workers-idle');
// `--node=<flag>` (repeated): a flag for agentplane's node (`--node=--trace-gc`: its collections
// in the measured phases are counted from its output; `--node=--cpu-prof`)
const nodeArgs = process.argv.filter((a) => a.startsWith('--node=')).map((a) => a.slice('--node='.length));
const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const tree = args[0] && !/^\d+$/.test(args[0]) ? args.shift()! : '.';
const [rounds = 3, seconds = 10, subscribers = 0] = args.map(Number);
const THREADS = 20;
const log = (line: string) => console.log(line);
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const root = tree === '.' ? ROOT : prepareBaseline(tree, log).root;
const p = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))] ?? NaN;
const r2 = (x: number) => Math.round(x * 100) / 100;

interface Target {
  url: string;
  headers: Record<string, string>;
}

/**
 * The calling thread's CPU time between two turns of a 1-ms timer, in ms, until stopped: how
 * long the client's own work held its loop, whatever else the machine did (a wall-clock delay
 * counts the waits for a core too). What a response ready on its socket waits in the client on a
 * quiet machine. Its source is also run in the quiet client's worker.
 */
function recordHolds(files: Pick<typeof fs, 'readlinkSync' | 'readFileSync'>): () => number[] {
  const file = `/proc/${files.readlinkSync('/proc/thread-self')}/schedstat`;
  const cpu = () => Number(files.readFileSync(file, 'latin1').split(' ', 1)[0]) / 1e6;
  const holds: number[] = [];
  let last = cpu();
  const timer = setInterval(() => {
    const now = cpu();
    holds.push(now - last);
    last = now;
  }, 1);
  return () => {
    clearInterval(timer);
    return holds;
  };
}

/** `/ok` of each target in turn, one request after another, for `ms`: each target's times. */
async function alternate(targets: Target[], ms: number): Promise<number[][]> {
  const times = targets.map(() => [] as number[]);
  const until = performance.now() + ms;
  while (performance.now() < until)
    for (const [i, t] of targets.entries()) {
      const started = performance.now();
      const res = await fetch(`${t.url}/ok`, { headers: t.headers });
      await res.arrayBuffer();
      times[i]!.push(performance.now() - started);
    }
  return times;
}

/** The same alternation on a loop of its own (a worker thread that does nothing else). */
function quietClient(targets: Target[], ms: number): Promise<{ times: number[][]; holds: number[] }> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    // tsx names the functions it compiles with a helper of its own, absent here
    const __name = (f) => f;
    ${recordHolds.toString()}
    (async () => {
      const { targets, ms } = workerData;
      const stop = recordHolds(require('node:fs'));
      const times = targets.map(() => []);
      const until = performance.now() + ms;
      while (performance.now() < until)
        for (const [i, t] of targets.entries()) {
          const started = performance.now();
          const res = await fetch(t.url + '/ok', { headers: t.headers });
          await res.arrayBuffer();
          times[i].push(performance.now() - started);
        }
      parentPort.postMessage({ times, holds: stop() });
    })();`;
  const worker = new Worker(code, { eval: true, workerData: { targets, ms } });
  return new Promise((resolve, reject) => {
    worker.once('message', (answer: { times: number[][]; holds: number[] }) => void worker.terminate().then(() => resolve(answer)));
    worker.once('error', reject);
  });
}

/** A thread's CPU time so far in ms (schedstat's first field): the main thread's is `tid` = `pid`. */
const threadCpuMs = (pid: number, tid = pid) => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const holdFigure = (xs: number[]) => [0.99, 0.999, 1].map((q) => r2(p(xs, q))).join(' / ');
/** A thread's niceness (field 19 of its stat, after the command's parenthesis). */
const niceness = (pid: number, tid: string) => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
/** Puts the server's run workers (its threads niced below the main thread) not yet in `done` under SCHED_IDLE, and adds them to it. */
function workersUnderIdle(pid: number, done: Set<string>): void {
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    if (done.has(tid)) continue;
    try {
      if (niceness(pid, tid) <= niceness(pid, String(pid))) continue;
      execFileSync('chrt', ['--idle', '-p', '0', tid]);
      done.add(tid);
    } catch {
      // a thread that ended meanwhile
    }
  }
}
/** A process's minor page faults so far (field 10 of its stat): on a machine where a fresh page is dear, memory touched is time. */
const minorFaults = (pid: number, tid?: number) =>
  Number(
    fs
      .readFileSync(tid ? `/proc/${pid}/task/${tid}/stat` : `/proc/${pid}/stat`, 'utf8')
      .split(') ')[1]!
      .split(' ')[7],
  );
const figure = (xs: number[]) => `p99 ${r2(p(xs, 0.99))} (p50 ${r2(p(xs, 0.5))}, ${xs.length})`;
const summary: { round: number; phase: string; agentplane: number; bare: number; quietAgentplane: number; quietBare: number }[] = [];

for (let round = 1; round <= rounds; round += 1) {
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'ok-beside-'));
  const bare = await startBroadcaster('bare-ok');
  const ap = await startFanoutServer(work, root, nodeArgs);
  // --trace-gc's lines, kept as they come (the output kept is a bounded tail, mostly access lines)
  const gcLines = new Map<string, string>();
  const gcWatch = nodeArgs.includes('--trace-gc')
    ? setInterval(() => {
        for (const line of ap.output().split('\n')) if (/ ms: (Scavenge|Mark-Compact|Mark-Sweep)/.test(line)) gcLines.set(line.split(' ms: ')[0]!, line);
      }, 100)
    : undefined;
  /** The collections logged since `from` lines were: count and ms of scavenges and of full collections. */
  const gcSince = (from: number) => {
    const lines = [...gcLines.values()].slice(from);
    const ms = (kind: RegExp, among: string[]) => {
      const of = among.filter((l) => kind.test(l));
      return `${of.length} (${r2(of.reduce((sum, l) => sum + Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(l)?.[1] ?? 0), 0))} ms)`;
    };
    // the main thread's isolate logs first (at the start, before any worker's)
    const main = [...gcLines.keys()][0]?.split(']')[0];
    const mainLines = lines.filter((l) => l.includes(`${main}]`));
    return `the main thread's scavenges ${ms(/Scavenge/, mainLines)}, full ${ms(/Mark-/, mainLines)}; the workers' scavenges ${ms(
      /Scavenge/,
      lines.filter((l) => !mainLines.includes(l)),
    )}; the main thread's last: ${mainLines.at(-1)?.trim() ?? '-'}`;
  };
  try {
    const targets: Target[] = [
      { url: ap.url, headers: ap.headers },
      { url: bare.url, headers: {} },
    ];
    const t = { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH };
    await alternate(targets, 1000);
    const measure = async (phase: string) => {
      const cpu0 = [threadCpuMs(ap.pid), threadCpuMs(bare.pid), threadCpuMs(process.pid)];
      const faults0 = [minorFaults(ap.pid), minorFaults(bare.pid), minorFaults(ap.pid, ap.pid)];
      const gc0 = gcLines.size;
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const stopHolds = recordHolds(fs);
      const [[a, b], quiet] = await Promise.all([alternate(targets, seconds * 1000), quietClient(targets, seconds * 1000)]);
      const [qa, qb] = quiet.times;
      const holds = stopHolds();
      delay.disable();
      const [apCpu, bareCpu, clientCpu] = [threadCpuMs(ap.pid), threadCpuMs(bare.pid), threadCpuMs(process.pid)].map((ms, i) => ms - cpu0[i]!);
      const requests = a!.length + qa!.length;
      const [apFaults, bareFaults, apMainFaults] = [minorFaults(ap.pid), minorFaults(bare.pid), minorFaults(ap.pid, ap.pid)].map((n, i) => n - faults0[i]!);
      const row = { round, phase, agentplane: r2(p(a!, 0.99)), bare: r2(p(b!, 0.99)), quietAgentplane: r2(p(qa!, 0.99)), quietBare: r2(p(qb!, 0.99)) };
      summary.push(row);
      log(
        `round ${round} ${phase}: the driving client: agentplane ${figure(a!)}, bare ${figure(b!)} (${r2(row.agentplane / row.bare)}x); a quiet client: agentplane ${figure(qa!)}, bare ${figure(qb!)} (${r2(row.quietAgentplane / row.quietBare)}x); main-thread CPU per \`/ok\` answered (all its work meanwhile): agentplane ${r2((apCpu * 1000) / requests)} µs, bare ${r2((bareCpu * 1000) / requests)} µs; main-thread CPU in all agentplane ${Math.round(apCpu)} ms, bare ${Math.round(bareCpu)} ms; minor page faults (the whole process) agentplane ${apFaults} (its main thread ${apMainFaults}), bare ${bareFaults}; the driving client's main thread ${Math.round(clientCpu / seconds / 10)}% of a core, its loop delay p99 ${r2(delay.percentile(99) / 1e6)} ms; CPU between two 1-ms turns p99 / p99.9 / max: the driving client ${holdFigure(holds)}, the quiet client ${holdFigure(quiet.holds)} ms; load ${load()}`,
      );
      if (gcWatch) log(`  agentplane's collections meanwhile: ${gcSince(gc0)}`);
    };
    await measure('idle');
    const threads = await Promise.all(Array.from({ length: THREADS }, () => newThread(t)));
    const held = subscribers > 0 ? await openSubscribers({ target: t, threads, subscribers }) : null;
    let running = true;
    let runs = 0;
    const drivers = threads.map(async (thread) => {
      while (running) if (await protocolRun(t, thread)) runs += 1;
    });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    // a run worker started later (one retired and started again) is put there too
    const idled = new Set<string>();
    const idling = workersIdle ? setInterval(() => workersUnderIdle(ap.pid, idled), 250) : undefined;
    const runs0 = runs;
    await measure((subscribers > 0 ? `runs and ${subscribers} subscribers` : 'runs alone') + (workersIdle ? ', workers under SCHED_IDLE' : ''));
    clearInterval(idling);
    log(`  ${runs - runs0} runs meanwhile${workersIdle ? `; ${idled.size} run workers put under SCHED_IDLE` : ''}`);
    running = false;
    await Promise.all(drivers);
    await held?.close();
  } finally {
    clearInterval(gcWatch);
    await ap.stop();
    await bare.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const phase of new Set(summary.map((s) => s.phase))) {
  const rows = summary.filter((s) => s.phase === phase);
  const col = (f: (s: (typeof rows)[number]) => number) => `${median(rows.map(f))} (${rows.map(f).join(', ')})`;
  log(
    `${phase}, medians (rounds): driving client agentplane ${col((s) => s.agentplane)}, bare ${col((s) => s.bare)}, ratio ${col((s) => r2(s.agentplane / s.bare))}; quiet client agentplane ${col((s) => s.quietAgentplane)}, bare ${col((s) => s.quietBare)}, ratio ${col((s) => r2(s.quietAgentplane / s.quietBare))}`,
  );
}
