// `npx tsx scripts/bench/runsCeiling.ts [rounds] [contender,…]`: issue 86's 100-thread runs against
// the least a server can do for them. Each round starts every contender fresh (the order flipping
// each round), gives it the fresh phase's warm-up and then 1,000 runs over 100 threads through the
// SDK with `maxConcurrency: 64` and with its default client (freshPeer.ts's sdkRuns). Contenders:
// `agentplane` (this tree, built), `peer` (the upstream dev server), `ceiling-<n>`: a bare
// node:http server running the runs with LangGraph alone on n worker threads (0: on its own loop;
// runsCeilingServer.ts); `ceiling-<n>-journal`: the same appending every record and checkpoint to
// files before going on (what durability costs at least). Prints each round's runs/s and the medians, and each contender's CPU a run
// (every thread of its process tree).
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { BENCH_GRAPH } from './graph.ts';
import { FRESH_RUNS_PER_THREAD, FRESH_THREADS, FRESH_WARM_UP, sdk, sdkRuns, type FreshClient } from './freshPeer.ts';
import { ensurePeer, startPeer } from './peer.ts';
import { cpuByTask, type Child } from './proc.ts';
import { startRunsCeiling } from './runsCeilingStart.ts';

const rounds = Number(process.argv[2] ?? 3);
const names = (process.argv[3] ?? 'agentplane,ceiling-1,ceiling-0,peer').split(',');
const log = (s: string) => console.log(s);
const work = path.join(ROOT, '.bench', `runs-ceiling-${process.pid}`);
let n = 0;

const start = async (name: string): Promise<{ child: Child & { headers?: Record<string, string> }; assistant: string }> => {
  if (name === 'agentplane')
    return { child: await startAgentplane({ dataDir: path.join(work, `data-${n}`), workDir: path.join(work, `w-${n++}`) }), assistant: BENCH_GRAPH };
  if (name === 'peer') return { child: await startPeer({ fresh: true }), assistant: BENCH_GRAPH };
  const m = /^ceiling-(\d+)(-journal)?$/.exec(name);
  if (m)
    return {
      child: await startRunsCeiling({ workers: Number(m[1]), journalDir: m[2] ? path.join(work, `journal-${n++}`) : undefined }),
      assistant: BENCH_GRAPH,
    };
  throw new Error(`no contender ${name}`);
};

/** The threads that spent the most over a scenario, in ms a run. */
function byThread(before: Map<string, { name: string; ms: number }>, after: Map<string, { name: string; ms: number }>, runs: number): string {
  return [...after]
    .map(([tid, t]) => ({ name: t.name, ms: (t.ms - (before.get(tid)?.ms ?? 0)) / runs }))
    .filter((t) => t.ms >= 0.05)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 6)
    .map((t) => `${t.name} ${t.ms.toFixed(2)}`)
    .join(', ');
}

if (names.includes('peer')) await ensurePeer(log);
const got = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
for (let round = 0; round < rounds; round += 1) {
  for (const name of round % 2 ? [...names].reverse() : names) {
    const { child, assistant } = await start(name);
    try {
      for (const [threads, perThread] of FRESH_WARM_UP) await sdkRuns(sdk(child.url, child.headers, 'maxConcurrency 64'), assistant, threads, perThread);
      const line: string[] = [];
      for (const client of (round % 2 ? ['default client', 'maxConcurrency 64'] : ['maxConcurrency 64', 'default client']) as FreshClient[]) {
        const before = child.cpu();
        const threadsBefore = name === 'peer' ? new Map() : cpuByTask(child.pid);
        const clientBefore = process.cpuUsage();
        const r = await sdkRuns(sdk(child.url, child.headers, client), assistant, FRESH_THREADS, FRESH_RUNS_PER_THREAD);
        const clientUsed = process.cpuUsage(clientBefore);
        const clientMs = (clientUsed.user + clientUsed.system) / 1000 / r.runs;
        const rate = r.runs / r.seconds;
        const key = `${name} ${client}`;
        got.set(key, [...(got.get(key) ?? []), rate]);
        cpu.set(key, [...(cpu.get(key) ?? []), ((child.cpu() - before) * 1000) / r.runs]);
        const threads = name === 'peer' ? '' : ` (${byThread(threadsBefore, cpuByTask(child.pid), r.runs)})`;
        line.push(
          `${client} ${rate.toFixed(1)} runs/s${r.failed ? ` (${r.failed} failed)` : ''}, ${(((child.cpu() - before) * 1000) / r.runs).toFixed(2)} ms CPU a run${threads}, client ${clientMs.toFixed(2)} ms a run`,
        );
      }
      log(`round ${round + 1} ${name.padEnd(11)} ${line.join('; ')}`);
    } finally {
      await child.stop();
    }
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
for (const [key, xs] of got)
  log(`${key.padEnd(30)} median ${median(xs).toFixed(1)} runs/s (${xs.map((x) => x.toFixed(0)).join(', ')}), CPU ${median(cpu.get(key)!).toFixed(2)} ms a run`);
