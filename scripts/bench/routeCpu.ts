// CPU per request and throughput on the routes the current tree shares with a baseline tree (d5486dc, the
// main before the request path's regression): `npx tsx scripts/bench/routeCpu.ts [ref]
// [pairs] [rounds]`. Both servers are up at once and each route is driven in short bursts,
// alternately, the order flipping every round, so the two see the same moments of a shared
// machine; a burst's figure is the server's own CPU time (every thread's, in ns, from
// /proc/<pid>/task/*/schedstat) over its requests, and its throughput (requests over the
// burst's wall time: what a user sees; issue 67 asks for both). Per route: each tree's median
// µs a request and req/s, and the ratios baseline µs / current µs and current req/s / baseline
// req/s, each the median of the rounds' ratios with their range. `pairs` fresh pairs of processes (a process's JIT may settle differently).
import path from 'node:path';
import fs from 'node:fs';
import { ROOT, expectStatus, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { deploymentBody } from './http.ts';
import { load } from './load.ts';
import { untilIdle } from './writes.ts';
import { ROUTE_CPU_ROUTES, type RouteCpuFigure, type RouteName } from './routeCpuFigure.ts';

export { ROUTE_CPU_ROUTES, type RouteCpuFigure };

export const ROUTE_CPU_BURST = 1000;

/** A process's CPU time in seconds, every thread's, at nanosecond resolution (Linux). */
export function processCpuPrecise(pid: number): number {
  let ns = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return ns / 1e9;
}

async function seed(ap: Agentplane): Promise<Record<RouteName, { url: string; method?: string; body?: string }>> {
  const dep = await ap.api('/v2/deployments', { json: deploymentBody('bench-cpu') });
  expectStatus('POST /v2/deployments', dep, 201);
  const thread = await ap.api('/threads', { json: { metadata: { bench: 'cpu' } } });
  expectStatus('POST /threads', thread, 200, 201);
  return {
    'GET /v2/deployments/{id}': { url: `/v2/deployments/${dep.body.id}` },
    'GET /ok': { url: '/ok' },
    'GET /threads/{id}': { url: `/threads/${thread.body.thread_id}` },
    'POST /threads': { url: '/threads', method: 'POST', body: '{}' },
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const r2 = (n: number) => Math.round(n * 100) / 100;

/** One burst of `BURST` requests: the server's CPU µs a request, and the burst's req/s (its requests over the time to its last response). */
async function burst(ap: Agentplane, route: { url: string; method?: string; body?: string }): Promise<{ us: number; rps: number }> {
  const pid = ap.pid;
  const before = processCpuPrecise(pid);
  const result = await load({
    url: ap.url + route.url,
    method: route.method,
    body: route.body,
    headers: route.body ? { ...ap.headers, 'content-type': 'application/json' } : ap.headers,
    connections: 10,
    amount: ROUTE_CPU_BURST,
  });
  if (result.non2xx || result.errors) throw new Error(`${route.method ?? 'GET'} ${route.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  // requests over the time to the last response (autocannon's own end waits for its 1 s tick)
  return { us: ((processCpuPrecise(pid) - before) / ROUTE_CPU_BURST) * 1e6, rps: result.requests / (result.lastResponseSeconds ?? result.seconds) };
}

/**
 * `pairs` pairs of fresh servers (the current tree and the baseline's), each pair measured in
 * `rounds` rounds per route after two untimed bursts of each route on each.
 */
export async function measureRouteCpu(
  baselineRoot: string,
  work: string,
  options: { pairs: number; rounds: number },
  log: (s: string) => void,
): Promise<RouteCpuFigure[]> {
  const samples = new Map(
    ROUTE_CPU_ROUTES.map((r) => [
      r,
      {
        current: [] as number[],
        baseline: [] as number[],
        ratios: [] as number[],
        currentRps: [] as number[],
        baselineRps: [] as number[],
        rpsRatios: [] as number[],
      },
    ]),
  );
  for (let pair = 0; pair < options.pairs; pair += 1) {
    const servers: { tree: 'current' | 'baseline'; ap: Agentplane }[] = [];
    try {
      for (const tree of pair % 2 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const)) {
        const ap = await startAgentplane({
          dataDir: path.join(work, `${tree}-${pair}`, 'data'),
          workDir: path.join(work, `${tree}-${pair}`),
          root: tree === 'baseline' ? baselineRoot : undefined,
        });
        servers.push({ tree, ap });
      }
      const routes = await Promise.all(servers.map((s) => seed(s.ap)));
      for (const s of servers) await untilIdle(s.ap);
      for (const name of ROUTE_CPU_ROUTES) for (let i = 0; i < 2; i += 1) for (const [k, s] of servers.entries()) await burst(s.ap, routes[k][name]);
      for (const name of ROUTE_CPU_ROUTES) {
        const got = samples.get(name)!;
        for (let round = 0; round < options.rounds; round += 1) {
          const inRound: Record<string, { us: number; rps: number }> = {};
          const order = round % 2 ? [1, 0] : [0, 1];
          for (const k of order) inRound[servers[k].tree] = await burst(servers[k].ap, routes[k][name]);
          got.current.push(inRound.current.us);
          got.baseline.push(inRound.baseline.us);
          got.ratios.push(inRound.baseline.us / inRound.current.us);
          got.currentRps.push(inRound.current.rps);
          got.baselineRps.push(inRound.baseline.rps);
          got.rpsRatios.push(inRound.current.rps / inRound.baseline.rps);
        }
        log(
          `  pair ${pair} ${name.padEnd(26)} current ${r2(median(got.current.slice(-options.rounds)))} µs, baseline ${r2(median(got.baseline.slice(-options.rounds)))} µs; current ${Math.round(median(got.currentRps.slice(-options.rounds)))} req/s, baseline ${Math.round(median(got.baselineRps.slice(-options.rounds)))} req/s`,
        );
      }
    } finally {
      await Promise.all(servers.map((s) => s.ap.stop()));
    }
  }
  return ROUTE_CPU_ROUTES.map((route) => {
    const got = samples.get(route)!;
    return {
      route,
      currentUs: r2(median(got.current)),
      baselineUs: r2(median(got.baseline)),
      ratio: r2(median(got.ratios)),
      ratioMin: r2(Math.min(...got.ratios)),
      ratioMax: r2(Math.max(...got.ratios)),
      rounds: got.ratios.length,
      currentRps: Math.round(median(got.currentRps)),
      baselineRps: Math.round(median(got.baselineRps)),
      rpsRatio: r2(median(got.rpsRatios)),
      rpsRatioMin: r2(Math.min(...got.rpsRatios)),
      rpsRatioMax: r2(Math.max(...got.rpsRatios)),
    };
  });
}

export const describeRouteCpu = (f: RouteCpuFigure) =>
  `${f.route.padEnd(26)} CPU: current ${f.currentUs} µs, baseline ${f.baselineUs} µs a request: ${f.ratio}× (rounds ${f.ratioMin}–${f.ratioMax}, n=${f.rounds}); throughput: current ${f.currentRps} req/s, baseline ${f.baselineRps} req/s: ${f.rpsRatio}× (rounds ${f.rpsRatioMin}–${f.rpsRatioMax})`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const [ref = baselineRefFrom([], process.env) ?? 'd5486dc', pairs = '2', rounds = '10'] = process.argv.slice(2);
  const log = (s: string) => console.log(s);
  const root = process.env.BENCH_BASELINE_ROOT ?? prepareBaseline(ref, log).root;
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'route-cpu-'));
  try {
    const figures = await measureRouteCpu(root, work, { pairs: Number(pairs), rounds: Number(rounds) }, log);
    for (const f of figures) log(describeRouteCpu(f));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
