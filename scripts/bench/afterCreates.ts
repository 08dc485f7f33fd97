// What a server spends after a burst of thread creations, on the current tree and a baseline
// tree: `npx tsx scripts/bench/afterCreates.ts [ref] [creates] [burst seconds] [turns]`
// (BENCH_BASELINE_ROOT: a baseline worktree made already). The route bench (routeCpu.ts) warms
// POST /threads last and times GET deployment next, so work a burst of creates leaves for later
// (a collection, a store snapshot) is billed to GET deployment's rounds. Both servers up at
// once; each turn gives each server in turn `creates` creates (10 connections), 5 s idle (its
// CPU ms each second), then GET deployment bursts of 2,000 requests for `burst seconds`: the
// process's CPU µs a request each burst (every thread), and the first two bursts' CPU by thread
// name (main; `node`: V8's workers, the collector's helpers; libuv's pool).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { loadRoute, processCpuPrecise, seed } from './routeCpu.ts';
import { untilIdle } from './writes.ts';
import { cpuByThread } from './proc.ts';

type Tree = 'current' | 'baseline';

const threadsSince = (before: Map<string, number>, after: Map<string, number>) =>
  [...after]
    .map(([name, ms]) => [name, ms - (before.get(name) ?? 0)] as const)
    .filter(([, ms]) => ms >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${ms.toFixed(0)}`)
    .join(', ');

async function turn(ap: Agentplane, routes: Awaited<ReturnType<typeof seed>>, creates: number, seconds: number): Promise<string> {
  const cpu = () => processCpuPrecise(ap.pid);
  let at = cpu();
  await loadRoute(ap, routes['POST /threads'], creates);
  const createUs = ((cpu() - at) / creates) * 1e6;
  // what the creates left for later, before any other request: the process's CPU over 1-s steps while idle
  const idle: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    at = cpu();
    await new Promise((r) => setTimeout(r, 1000));
    idle.push((cpu() - at) * 1000);
  }
  const bursts: number[] = [];
  const threads: string[] = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    at = cpu();
    const before = cpuByThread(ap.pid);
    await loadRoute(ap, routes['GET /v2/deployments/{id}'], 2000);
    bursts.push(((cpu() - at) / 2000) * 1e6);
    if (threads.length < 2) threads.push(threadsSince(before, cpuByThread(ap.pid)));
  }
  return `create ${createUs.toFixed(1)} µs; idle ms a second ${idle.map((b) => b.toFixed(0)).join(' ')}; GET deployment µs a request by burst: ${bursts.map((b) => b.toFixed(1)).join(' ')}; the first two bursts' ms by thread: ${threads.join(' | ')}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [ref = baselineRefFrom([], process.env) ?? '292602a8', creates = '20000', seconds = '4', turns = '4'] = process.argv.slice(2);
  const log = (s: string) => console.log(s);
  const baselineRoot = process.env.BENCH_BASELINE_ROOT ?? prepareBaseline(ref, log).root;
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'after-creates-'));
  const servers: { tree: Tree; ap: Agentplane; routes: Awaited<ReturnType<typeof seed>> }[] = [];
  try {
    for (const tree of ['current', 'baseline'] as const) {
      const ap = await startAgentplane({
        dataDir: path.join(work, tree, 'data'),
        workDir: path.join(work, tree),
        root: tree === 'baseline' ? baselineRoot : undefined,
      });
      servers.push({ tree, ap, routes: await seed(ap) });
    }
    for (const s of servers) {
      for (const name of ['GET /v2/deployments/{id}', 'POST /threads'] as const) await loadRoute(s.ap, s.routes[name], 6000);
      await untilIdle(s.ap);
    }
    for (let t = 0; t < Number(turns); t += 1) {
      for (const s of t % 2 ? [...servers].reverse() : servers) {
        log(`turn ${t} ${s.tree.padEnd(8)} ${await turn(s.ap, s.routes, Number(creates), Number(seconds))}`);
        await untilIdle(s.ap);
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.ap.stop()));
    fs.rmSync(work, { recursive: true, force: true });
  }
}
