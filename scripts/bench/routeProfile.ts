// Where a request's CPU goes over the socket, on the current tree and a baseline tree side by side:
// `npx tsx scripts/bench/routeProfile.ts [ref] [requests] [out dir]` (BENCH_BASELINE_ROOT: a
// baseline worktree made already; BENCH_ROUTE_CURRENT_LOG_LEVEL / BENCH_ROUTE_BASELINE_LOG_LEVEL
// as in routeCpu.ts; --route '<route>' repeatable). Both servers run with
// routesInProcessPreload.cjs, which starts and stops the inspector's CPU profiler on a request of
// the bench's: each route is driven by autocannon (10 connections, as routeCpu.ts) on one tree
// and then the other after the same untimed bursts, and only the timed burst is profiled, so
// neither the start nor the warm-up is in the figures. Prints each function's self time a
// request on both (profileSummary.ts), the idle time left out, and keeps the profiles.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, request, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { loadRoute, seed } from './routeCpu.ts';
import { untilIdle } from './writes.ts';
import { bySelf } from './profileSummary.ts';
import { ROUTE_CPU_ROUTES, type RouteName } from './routeCpuFigure.ts';

const PRELOAD = path.join(ROOT, 'scripts/bench/routesInProcessPreload.cjs');
const CONTROL = '/__in-process/';
const WARM_BURSTS = 3;

type Tree = 'current' | 'baseline';

async function control(ap: Agentplane, action: string, body: unknown): Promise<void> {
  const res = await request(ap.url + CONTROL + action, { json: body, timeoutMs: 120_000 });
  if (res.status !== 200) throw new Error(`${action}: HTTP ${res.status} ${res.text.slice(0, 2000)}`);
}

export async function profileRoutes(
  baselineRoot: string,
  work: string,
  options: { requests: number; out: string; routes: RouteName[]; env: Partial<Record<Tree, Record<string, string>>> },
  log: (s: string) => void,
): Promise<void> {
  const servers: { tree: Tree; ap: Agentplane }[] = [];
  try {
    for (const tree of ['current', 'baseline'] as const) {
      const ap = await startAgentplane({
        dataDir: path.join(work, tree, 'data'),
        workDir: path.join(work, tree),
        root: tree === 'baseline' ? baselineRoot : undefined,
        nodeArgs: ['--require', PRELOAD],
        env: { ROUTES_IN_PROCESS_INJECT: createRequire(import.meta.url).resolve('light-my-request'), ...options.env[tree] },
      });
      servers.push({ tree, ap });
    }
    const routes = await Promise.all(servers.map((s) => seed(s.ap)));
    for (const s of servers) await untilIdle(s.ap);
    fs.mkdirSync(options.out, { recursive: true });
    for (const name of options.routes) {
      for (let i = 0; i < WARM_BURSTS; i += 1) for (const [k, s] of servers.entries()) await loadRoute(s.ap, routes[k][name], options.requests);
      const selves = new Map<Tree, Map<string, number>>();
      for (const [k, s] of servers.entries()) {
        const file = path.join(options.out, `${s.tree}-${name.replace(/[^a-z]+/gi, '-').replace(/-$/, '')}.cpuprofile`);
        await control(s.ap, 'profileStart', { interval: 100 });
        await loadRoute(s.ap, routes[k][name], options.requests);
        await control(s.ap, 'profileStop', { file });
        const self = bySelf(JSON.parse(fs.readFileSync(file, 'utf8')), 1);
        self.delete('(idle)');
        selves.set(s.tree, self);
        log(`  ${s.tree}: ${file}`);
      }
      const [current, baseline] = [selves.get('current')!, selves.get('baseline')!];
      const n = options.requests;
      const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) / n;
      log(
        `${name}: current ${sum(current).toFixed(1)} µs, baseline ${sum(baseline).toFixed(1)} µs a request (self time, idle left out); the rows that differ most:`,
      );
      const rows = [...new Set([...current.keys(), ...baseline.keys()])]
        .map((k) => ({ k, c: (current.get(k) ?? 0) / n, b: (baseline.get(k) ?? 0) / n }))
        .sort((x, y) => Math.abs(y.c - y.b) - Math.abs(x.c - x.b));
      for (const { k, c, b } of rows.slice(0, 40)) log(`${(c - b).toFixed(2).padStart(8)} (${c.toFixed(2)} / ${b.toFixed(2)}) ${k}`);
    }
  } finally {
    await Promise.all(servers.map((s) => s.ap.stop()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const routes = args.flatMap((a, i) => (args[i - 1] === '--route' ? [a] : [])) as RouteName[];
  const positional = args.filter((a, i) => a !== '--route' && args[i - 1] !== '--route');
  const [ref = baselineRefFrom([], process.env) ?? 'd5486dc', requests = '40000', out = path.join(ROOT, '.bench', 'route-profiles')] = positional;
  const log = (s: string) => console.log(s);
  const root = process.env.BENCH_BASELINE_ROOT ?? (ref === '.' ? ROOT : prepareBaseline(ref, log).root);
  const level = (name: string) => (process.env[name] ? { LOG_LEVEL: process.env[name]! } : undefined);
  const env = { current: level('BENCH_ROUTE_CURRENT_LOG_LEVEL'), baseline: level('BENCH_ROUTE_BASELINE_LOG_LEVEL') };
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'route-profile-'));
  try {
    await profileRoutes(root, work, { requests: Number(requests), out: path.resolve(out), routes: routes.length ? routes : [...ROUTE_CPU_ROUTES], env }, log);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
