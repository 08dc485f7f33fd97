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
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ROOT } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { newThread, protocolRun, startFanoutServer } from './fanout.ts';
import { openSubscribers } from './fanoutSubscribers.ts';
import { BENCH_GRAPH } from './graph.ts';
import { freePort, startChild } from './proc.ts';

const args = process.argv.slice(2);
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
function quietClient(targets: Target[], ms: number): Promise<number[][]> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { targets, ms } = workerData;
      const times = targets.map(() => []);
      const until = performance.now() + ms;
      while (performance.now() < until)
        for (const [i, t] of targets.entries()) {
          const started = performance.now();
          const res = await fetch(t.url + '/ok', { headers: t.headers });
          await res.arrayBuffer();
          times[i].push(performance.now() - started);
        }
      parentPort.postMessage(times);
    })();`;
  const worker = new Worker(code, { eval: true, workerData: { targets, ms } });
  return new Promise((resolve, reject) => {
    worker.once('message', (times: number[][]) => void worker.terminate().then(() => resolve(times)));
    worker.once('error', reject);
  });
}

/** A thread's CPU time so far in ms (schedstat's first field): the main thread's is `tid` = `pid`. */
const threadCpuMs = (pid: number, tid = pid) => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const figure = (xs: number[]) => `p99 ${r2(p(xs, 0.99))} (p50 ${r2(p(xs, 0.5))}, ${xs.length})`;
const summary: { round: number; phase: string; agentplane: number; bare: number; quietAgentplane: number; quietBare: number }[] = [];

for (let round = 1; round <= rounds; round += 1) {
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'ok-beside-'));
  const port = await freePort();
  const bare = await startChild({
    name: 'bare-ok',
    command: process.execPath,
    args: ['--import', 'tsx', path.join(ROOT, 'scripts/bench/fanoutCeiling.ts'), String(port)],
    cwd: ROOT,
    port,
    probePath: '/ok',
  });
  const ap = await startFanoutServer(work, root);
  try {
    const targets: Target[] = [
      { url: ap.url, headers: ap.headers },
      { url: bare.url, headers: {} },
    ];
    const t = { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH };
    await alternate(targets, 1000);
    const measure = async (phase: string) => {
      const cpu0 = [threadCpuMs(ap.pid), threadCpuMs(bare.pid), threadCpuMs(process.pid)];
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const [[a, b], [qa, qb]] = await Promise.all([alternate(targets, seconds * 1000), quietClient(targets, seconds * 1000)]);
      delay.disable();
      const [apCpu, bareCpu, clientCpu] = [threadCpuMs(ap.pid), threadCpuMs(bare.pid), threadCpuMs(process.pid)].map((ms, i) => ms - cpu0[i]!);
      const requests = a!.length + qa!.length;
      const row = { round, phase, agentplane: r2(p(a!, 0.99)), bare: r2(p(b!, 0.99)), quietAgentplane: r2(p(qa!, 0.99)), quietBare: r2(p(qb!, 0.99)) };
      summary.push(row);
      log(
        `round ${round} ${phase}: the driving client: agentplane ${figure(a!)}, bare ${figure(b!)} (${r2(row.agentplane / row.bare)}x); a quiet client: agentplane ${figure(qa!)}, bare ${figure(qb!)} (${r2(row.quietAgentplane / row.quietBare)}x); main-thread CPU per \`/ok\` answered (all its work meanwhile): agentplane ${r2((apCpu * 1000) / requests)} µs, bare ${r2((bareCpu * 1000) / requests)} µs; the driving client's main thread ${Math.round(clientCpu / seconds / 10)}% of a core, its loop delay p99 ${r2(delay.percentile(99) / 1e6)} ms; load ${load()}`,
      );
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
    const runs0 = runs;
    await measure(subscribers > 0 ? `runs and ${subscribers} subscribers` : 'runs alone');
    log(`  ${runs - runs0} runs meanwhile`);
    running = false;
    await Promise.all(drivers);
    await held?.close();
  } finally {
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
