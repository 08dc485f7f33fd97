// CPU per request and throughput on the routes the current tree shares with a baseline tree (d5486dc, the
// main before the request path's regression): `npx tsx scripts/bench/routeCpu.ts [ref]
// [pairs] [rounds]`. Both servers are up at once and each route is driven in bursts of about
// ROUTE_CPU_BURST_SECONDS each (the same request count on both), alternately, the order
// flipping every round, so the two see the same moments of a shared machine; a burst's figure
// is the server's own CPU time (every thread's, in ns, from /proc/<pid>/task/*/schedstat) over
// its requests, and its throughput (requests over the burst's wall time: what a user sees;
// issue 67 asks for both). The client's own CPU is read over each burst too: a saturated client
// would make the throughput ratio the client's. Per route: each tree's median µs a request and
// req/s, and the ratios baseline µs / current µs and current req/s / baseline req/s, each the
// median of the rounds' ratios with their range. `pairs` fresh pairs of processes (a process's
// JIT may settle differently). Both servers run at the default log level unless
// BENCH_ROUTE_CURRENT_LOG_LEVEL / BENCH_ROUTE_BASELINE_LOG_LEVEL say otherwise; ref `.` is the
// current tree against itself (with BENCH_ROUTE_BASELINE_LOG_LEVEL=warn: the access log's cost).
import path from 'node:path';
import fs from 'node:fs';
import { ROOT, expectStatus, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { deploymentBody } from './http.ts';
import { load, type LoadResult } from './load.ts';
import { untilIdle } from './writes.ts';
import { median } from './protocolFigures.ts';
import { ROUTE_CPU_ROUTES, type RouteCpuFigure, type RouteName } from './routeCpuFigure.ts';

export { ROUTE_CPU_ROUTES, type RouteCpuFigure };

/** The first untimed burst of each route on each server, in requests: it also gives the rate a timed burst is sized by. */
export const ROUTE_CPU_BURST = 1000;
/**
 * A timed burst lasts about this long on the slower server (its requests: the slower one's
 * warm rate times this). Bursts of 1,000 requests (0.1 s at 10k req/s) put a scheduler tick
 * or a collection of either process into one burst's figure: their rounds ranged 0.3–2×.
 * Both servers get the same count, so a write route grows both stores alike.
 */
export const ROUTE_CPU_BURST_SECONDS = Number(process.env.BENCH_ROUTE_BURST_SECONDS ?? 2);

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

/** A deployment and a thread on `ap`, and each route's request against them. */
export async function seed(ap: Agentplane): Promise<Record<RouteName, { url: string; method?: string; body?: string }>> {
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

const r2 = (n: number) => Math.round(n * 100) / 100;

interface Burst {
  /** Server CPU µs a request. */
  us: number;
  rps: number;
  /** The bench process's own CPU (the load generator) µs a request, and its share of one core over the burst. */
  clientUs: number;
  clientShare: number;
}

/** `amount` requests of `route` on `ap`, 10 connections; throws unless every answer is 2xx. */
export async function loadRoute(ap: Agentplane, route: { url: string; method?: string; body?: string }, amount: number): Promise<LoadResult> {
  const result = await load({
    url: ap.url + route.url,
    method: route.method,
    body: route.body,
    headers: route.body ? { ...ap.headers, 'content-type': 'application/json' } : ap.headers,
    connections: 10,
    amount,
  });
  if (result.non2xx || result.errors) throw new Error(`${route.method ?? 'GET'} ${route.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

/** One burst of `amount` requests: the server's CPU µs a request, the burst's req/s (its requests over the time to its last response), and the client's CPU. */
async function burst(ap: Agentplane, route: { url: string; method?: string; body?: string }, amount: number): Promise<Burst> {
  const pid = ap.pid;
  const before = processCpuPrecise(pid);
  const clientBefore = process.cpuUsage();
  const result = await loadRoute(ap, route, amount);
  const client = process.cpuUsage(clientBefore);
  // requests over the time to the last response (autocannon's own end waits for its 1 s tick)
  const seconds = result.lastResponseSeconds ?? result.seconds;
  const clientSeconds = (client.user + client.system) / 1e6;
  return {
    us: ((processCpuPrecise(pid) - before) / amount) * 1e6,
    rps: result.requests / seconds,
    clientUs: (clientSeconds / amount) * 1e6,
    clientShare: clientSeconds / seconds,
  };
}

/**
 * `pairs` pairs of fresh servers (the current tree and the baseline's), each pair measured in
 * `rounds` rounds per route after the same untimed bursts of each route on each, the first of
 * ROUTE_CPU_BURST requests, each next one sized by the last, until the size settles.
 */
export async function measureRouteCpu(
  baselineRoot: string,
  work: string,
  options: { pairs: number; rounds: number; env?: { current?: Record<string, string>; baseline?: Record<string, string> } },
  log: (s: string) => void,
): Promise<RouteCpuFigure[]> {
  const samples = new Map(ROUTE_CPU_ROUTES.map((r) => [r, { current: [] as Burst[], baseline: [] as Burst[] }]));
  for (let pair = 0; pair < options.pairs; pair += 1) {
    const servers: { tree: 'current' | 'baseline'; ap: Agentplane }[] = [];
    try {
      for (const tree of pair % 2 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const)) {
        const ap = await startAgentplane({
          dataDir: path.join(work, `${tree}-${pair}`, 'data'),
          workDir: path.join(work, `${tree}-${pair}`),
          root: tree === 'baseline' ? baselineRoot : undefined,
          env: options.env?.[tree],
        });
        servers.push({ tree, ap });
      }
      const routes = await Promise.all(servers.map((s) => seed(s.ap)));
      for (const s of servers) await untilIdle(s.ap);
      const amounts = new Map<RouteName, number>();
      for (const name of ROUTE_CPU_ROUTES) {
        // untimed bursts on both, each sized by the last one's slower rate, until the size settles: a
        // route's first bursts run cold (its code not yet optimised) and would size the timed ones too small
        let amount = ROUTE_CPU_BURST;
        for (let i = 0; i < 5; i += 1) {
          const rates: number[] = [];
          for (const [k, s] of servers.entries()) rates.push((await burst(s.ap, routes[k][name], amount)).rps);
          const next = Math.max(ROUTE_CPU_BURST, Math.round(Math.min(...rates) * ROUTE_CPU_BURST_SECONDS));
          const settled = i > 0 && next < amount * 1.25;
          amount = Math.max(amount, next);
          if (settled) break;
        }
        amounts.set(name, amount);
      }
      for (const name of ROUTE_CPU_ROUTES) {
        const got = samples.get(name)!;
        const mine = { current: [] as Burst[], baseline: [] as Burst[] };
        for (let round = 0; round < options.rounds; round += 1) {
          for (const k of round % 2 ? [1, 0] : [0, 1]) mine[servers[k].tree].push(await burst(servers[k].ap, routes[k][name], amounts.get(name)!));
        }
        got.current.push(...mine.current);
        got.baseline.push(...mine.baseline);
        const m = (tree: 'current' | 'baseline', key: keyof Burst) => median(mine[tree].map((b) => b[key]));
        log(
          `  pair ${pair} ${name.padEnd(26)} ${amounts.get(name)} requests a burst: current ${r2(m('current', 'us'))} µs, baseline ${r2(m('baseline', 'us'))} µs; current ${Math.round(m('current', 'rps'))} req/s, baseline ${Math.round(m('baseline', 'rps'))} req/s; client ${r2(m('current', 'clientUs'))} / ${r2(m('baseline', 'clientUs'))} µs a request, ${r2(m('current', 'clientShare'))} / ${r2(m('baseline', 'clientShare'))} of a core`,
        );
      }
    } finally {
      await Promise.all(servers.map((s) => s.ap.stop()));
    }
  }
  return ROUTE_CPU_ROUTES.map((route) => {
    const { current, baseline } = samples.get(route)!;
    // a round is the two bursts of the same index: the same moments of the shared machine
    const ratios = current.map((c, i) => baseline[i].us / c.us);
    const rpsRatios = current.map((c, i) => c.rps / baseline[i].rps);
    const shares = [...current, ...baseline].map((b) => b.clientShare);
    return {
      route,
      currentUs: r2(median(current.map((b) => b.us))),
      baselineUs: r2(median(baseline.map((b) => b.us))),
      ratio: r2(median(ratios)),
      ratioMin: r2(Math.min(...ratios)),
      ratioMax: r2(Math.max(...ratios)),
      rounds: ratios.length,
      currentRps: Math.round(median(current.map((b) => b.rps))),
      baselineRps: Math.round(median(baseline.map((b) => b.rps))),
      rpsRatio: r2(median(rpsRatios)),
      rpsRatioMin: r2(Math.min(...rpsRatios)),
      rpsRatioMax: r2(Math.max(...rpsRatios)),
      currentClientUs: r2(median(current.map((b) => b.clientUs))),
      baselineClientUs: r2(median(baseline.map((b) => b.clientUs))),
      clientShare: r2(median(shares)),
      clientShareMax: r2(Math.max(...shares)),
    };
  });
}

export const describeRouteCpu = (f: RouteCpuFigure) =>
  `${f.route.padEnd(26)} CPU: current ${f.currentUs} µs, baseline ${f.baselineUs} µs a request: ${f.ratio}× (rounds ${f.ratioMin}–${f.ratioMax}, n=${f.rounds}); throughput: current ${f.currentRps} req/s, baseline ${f.baselineRps} req/s: ${f.rpsRatio}× (rounds ${f.rpsRatioMin}–${f.rpsRatioMax}); client: ${f.currentClientUs} / ${f.baselineClientUs} µs a request, ${f.clientShare} of a core (at most ${f.clientShareMax})`;

if (import.meta.url === `file://${process.argv[1]}`) {
  // ref `.` is the current tree itself: with BENCH_ROUTE_BASELINE_LOG_LEVEL=warn, what the access log costs
  const [ref = baselineRefFrom([], process.env) ?? 'd5486dc', pairs = '2', rounds = '10'] = process.argv.slice(2);
  const log = (s: string) => console.log(s);
  const root = process.env.BENCH_BASELINE_ROOT ?? (ref === '.' ? ROOT : prepareBaseline(ref, log).root);
  const level = (name: string) => (process.env[name] ? { LOG_LEVEL: process.env[name] } : undefined);
  const env = { current: level('BENCH_ROUTE_CURRENT_LOG_LEVEL'), baseline: level('BENCH_ROUTE_BASELINE_LOG_LEVEL') };
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'route-cpu-'));
  try {
    log(`current at LOG_LEVEL=${env.current?.LOG_LEVEL ?? 'default (info)'}, ${ref} at LOG_LEVEL=${env.baseline?.LOG_LEVEL ?? 'default (info)'}`);
    const figures = await measureRouteCpu(root, work, { pairs: Number(pairs), rounds: Number(rounds), env }, log);
    for (const f of figures) log(describeRouteCpu(f));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
