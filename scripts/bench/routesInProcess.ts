// CPU, garbage and collections a request, in process, on the routes the current tree shares
// with a baseline tree (d5486dc): `npx tsx scripts/bench/routesInProcess.ts [ref] [pairs]
// [rounds] [requests]` (BENCH_BASELINE_ROOT: a baseline worktree made already). Each tree's
// server starts from its own entry point, in a process of its own (heaps never mix), with
// routesInProcessPreload.cjs preloaded: that takes the request listener the server made and
// drives it with light-my-request, so neither the socket nor a load generator sharing the
// cores is in the figure (routeCpu.ts measures over the socket). Rounds alternate between the
// trees, the order flipping every round, after the same untimed rounds on both. A round gives
// the process's CPU (getrusage, every thread: the collector's helpers too), the collections'
// time and count (V8's GC profiler), the bytes allocated and those a scavenge promoted, a
// request. With `--retained`, then bytes a POST /threads keeps (heap after full collections,
// before and after) and, with `--snapshots <dir>`, heap snapshots after 1,000 and 2,000 more
// creates, for heapSnapshotDiff.ts. With `--profile <dir>`, after each route's rounds a CPU
// profile and an allocation profile of a round on each tree, for profileSummary.ts.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { ROOT, request, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { seed } from './routeCpu.ts';
import { untilIdle } from './writes.ts';
import { median } from './protocolFigures.ts';
import { ROUTE_CPU_ROUTES, type RouteName } from './routeCpuFigure.ts';

const PRELOAD = path.join(ROOT, 'scripts/bench/routesInProcessPreload.cjs');
const CONTROL = '/__in-process/';
const CONCURRENCY = 10;
/** Untimed rounds of each route on each tree before the timed ones: the routes' code optimised on both. */
const WARM_ROUNDS = 2;

type Tree = 'current' | 'baseline';
interface Injected {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}
interface Round {
  count: number;
  cpuUs: number;
  wallUs: number;
  allocated: number;
  heapEnd: number;
  gc: { scavenges: number; scavengeUs: number; promoted: number; fullGcs: number; fullUs: number; other: number; otherUs: number };
}
/** A round's figures a request. */
interface PerRequest {
  cpuUs: number;
  gcUs: number;
  kb: number;
  promotedKb: number;
  scavengesPer1k: number;
  /** The heap in use at the round's end, MB. */
  heapMb: number;
}

async function control<T>(ap: Agentplane, action: string, body: unknown): Promise<T> {
  const res = await request(ap.url + CONTROL + action, { json: body, timeoutMs: 600_000 });
  if (res.status !== 200) throw new Error(`${action}: HTTP ${res.status} ${res.text.slice(0, 2000)}`);
  return res.body as T;
}

const perRequest = (r: Round): PerRequest => ({
  cpuUs: r.cpuUs / r.count,
  gcUs: (r.gc.scavengeUs + r.gc.fullUs + r.gc.otherUs) / r.count,
  kb: r.allocated / r.count / 1024,
  promotedKb: r.gc.promoted / r.count / 1024,
  scavengesPer1k: (r.gc.scavenges * 1000) / r.count,
  heapMb: r.heapEnd / 2 ** 20,
});

const r2 = (n: number) => Math.round(n * 100) / 100;
const spread = (xs: number[]) => `${r2(median(xs))} [${r2(Math.min(...xs))}–${r2(Math.max(...xs))}]`;

async function start(tree: Tree, root: string | undefined, work: string, pair: number): Promise<Agentplane> {
  return startAgentplane({
    // BENCH_IN_PROCESS_MEMORY=1: the store in memory only (no journal), to tell the store's part from the rest
    dataDir: process.env.BENCH_IN_PROCESS_MEMORY === '1' ? null : path.join(work, `${tree}-${pair}`, 'data'),
    workDir: path.join(work, `${tree}-${pair}`),
    root,
    nodeArgs: ['--expose-gc', '--require', PRELOAD],
    env: { ROUTES_IN_PROCESS_INJECT: createRequire(import.meta.url).resolve('light-my-request') },
  });
}

function injected(ap: Agentplane, route: { url: string; method?: string; body?: string }): Injected {
  return {
    method: route.method ?? 'GET',
    url: route.url,
    headers: route.body ? { ...ap.headers, 'content-type': 'application/json' } : ap.headers,
    ...(route.body ? { payload: route.body } : {}),
  };
}

export interface InProcessOptions {
  pairs: number;
  rounds: number;
  requests: number;
  retained: boolean;
  snapshots?: string;
  profiles?: string;
  /** Only these routes (`--route 'POST /threads'`, repeatable); all when absent. */
  routes?: string[];
}

export async function measureInProcess(baselineRoot: string, work: string, options: InProcessOptions, log: (s: string) => void): Promise<void> {
  const measured = ROUTE_CPU_ROUTES.filter((r) => !options.routes || options.routes.includes(r));
  const samples = new Map(measured.map((r) => [r, { current: [] as PerRequest[], baseline: [] as PerRequest[] }]));
  for (let pair = 0; pair < options.pairs; pair += 1) {
    const servers: { tree: Tree; ap: Agentplane; routes: Record<RouteName, Injected> }[] = [];
    try {
      for (const tree of pair % 2 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const)) {
        const ap = await start(tree, tree === 'baseline' ? baselineRoot : undefined, work, pair);
        const routes = await seed(ap);
        await untilIdle(ap);
        servers.push({ tree, ap, routes: Object.fromEntries(ROUTE_CPU_ROUTES.map((r) => [r, injected(ap, routes[r])])) as Record<RouteName, Injected> });
      }
      const round = (k: number, name: RouteName) =>
        control<Round>(servers[k].ap, 'round', { route: servers[k].routes[name], count: options.requests, concurrency: CONCURRENCY });
      for (const name of measured) {
        for (let i = 0; i < WARM_ROUNDS; i += 1) for (const k of [0, 1]) await round(k, name);
        const mine = { current: [] as PerRequest[], baseline: [] as PerRequest[] };
        for (let i = 0; i < options.rounds; i += 1) {
          for (const k of i % 2 ? [1, 0] : [0, 1]) mine[servers[k].tree].push(perRequest(await round(k, name)));
        }
        const calibrated: string[] = [];
        for (const s of servers) {
          const c = await control<{ promiseNs: number; objectNs: number }>(s.ap, 'calibrate', {});
          calibrated.push(`${s.tree} ${r2(c.promiseNs)} ns an awaited promise, ${r2(c.objectNs)} ns an object`);
        }
        log(`  pair ${pair} after ${name}: the bench's own code in each process: ${calibrated.join('; ')}`);
        if (options.profiles) await profiles(servers, name, options, pair, log);
        samples.get(name)!.current.push(...mine.current);
        samples.get(name)!.baseline.push(...mine.baseline);
        const m = (tree: Tree, key: keyof PerRequest) => r2(median(mine[tree].map((p) => p[key])));
        log(
          `  pair ${pair} ${name.padEnd(26)} current / baseline: CPU ${m('current', 'cpuUs')} / ${m('baseline', 'cpuUs')} µs, GC ${m('current', 'gcUs')} / ${m('baseline', 'gcUs')} µs, ` +
            `${m('current', 'kb')} / ${m('baseline', 'kb')} KB allocated, ${m('current', 'promotedKb')} / ${m('baseline', 'promotedKb')} KB promoted, ` +
            `${m('current', 'scavengesPer1k')} / ${m('baseline', 'scavengesPer1k')} scavenges a 1,000, heap ${m('current', 'heapMb')} / ${m('baseline', 'heapMb')} MB`,
        );
      }
      if (options.retained) for (const s of servers) await keeps(s, options.snapshots, pair, log);
    } finally {
      await Promise.all(servers.map((s) => s.ap.stop()));
    }
  }
  for (const [name, { current, baseline }] of samples) {
    // a round's two figures were taken one after the other: the same moments of the machine
    const ratio = (key: keyof PerRequest) => spread(current.map((c, i) => baseline[i][key] / c[key]));
    log(
      `${name.padEnd(26)} baseline ÷ current (median [range], n=${current.length}): CPU ${ratio('cpuUs')}, GC time ${ratio('gcUs')}, allocated ${ratio('kb')}, promoted ${ratio('promotedKb')}; ` +
        `current CPU ${spread(current.map((c) => c.cpuUs))} µs, baseline ${spread(baseline.map((c) => c.cpuUs))} µs`,
    );
  }
}

/** Each tree's CPU and allocation profiles of a round of `name`. */
async function profiles(
  servers: { tree: Tree; ap: Agentplane; routes: Record<RouteName, Injected> }[],
  name: RouteName,
  options: InProcessOptions,
  pair: number,
  log: (s: string) => void,
) {
  const dir = options.profiles!;
  fs.mkdirSync(dir, { recursive: true });
  const slug = name.replace(/[^a-z]+/gi, '-').replace(/-$/, '');
  for (const s of servers) {
    for (const kind of ['cpu', 'allocations']) {
      const file = path.join(dir, `${s.tree}-${pair}${slug}.${kind === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
      await control(s.ap, 'profile', { route: s.routes[name], count: options.requests, concurrency: CONCURRENCY, kind, file });
      log(`  ${s.tree}: ${file} (${options.requests} requests)`);
    }
  }
}

/** What a create keeps: heap after full collections over 2,000 creates, and optionally snapshots after 1,000 and 2,000. */
async function keeps(
  s: { tree: Tree; ap: Agentplane; routes: Record<RouteName, Injected> },
  snapshots: string | undefined,
  pair: number,
  log: (s: string) => void,
) {
  const route = s.routes['POST /threads'];
  const kept = await control<{ perRequest: number }>(s.ap, 'retained', { route, count: 2000, concurrency: CONCURRENCY });
  log(`  pair ${pair} ${s.tree}: a POST /threads keeps ${Math.round(kept.perRequest)} bytes (heap after full collections, 2,000 creates)`);
  if (!snapshots) return;
  fs.mkdirSync(snapshots, { recursive: true });
  for (const at of [1000, 2000]) {
    if (at === 2000) await control(s.ap, 'retained', { route, count: 1000, concurrency: CONCURRENCY });
    const { file } = await control<{ file: string }>(s.ap, 'snapshot', { file: path.join(snapshots, `${s.tree}-${pair}-${at}.heapsnapshot`) });
    log(`  ${s.tree}: ${file}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const flag = (name: string) => args.includes(name);
  const snapshotsAt = args.indexOf('--snapshots');
  const snapshots = snapshotsAt >= 0 ? path.resolve(args[snapshotsAt + 1]) : undefined;
  const profilesAt = args.indexOf('--profile');
  const profiles = profilesAt >= 0 ? path.resolve(args[profilesAt + 1]) : undefined;
  const routes = args.flatMap((a, i) => (args[i - 1] === '--route' ? [a] : []));
  const values = new Set([snapshotsAt, profilesAt, ...args.flatMap((a, i) => (a === '--route' ? [i] : []))].filter((at) => at >= 0).map((at) => at + 1));
  const positional = args.filter((a, i) => !a.startsWith('--') && !values.has(i));
  const [ref = baselineRefFrom([], process.env) ?? 'd5486dc', pairs = '1', rounds = '6', requests = '4000'] = positional;
  const log = (s: string) => console.log(s);
  const root = process.env.BENCH_BASELINE_ROOT ?? prepareBaseline(ref, log).root;
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'in-process-'));
  try {
    await measureInProcess(
      root,
      work,
      {
        pairs: Number(pairs),
        rounds: Number(rounds),
        requests: Number(requests),
        retained: flag('--retained') || !!snapshots,
        snapshots,
        profiles,
        routes: routes.length ? routes : undefined,
      },
      log,
    );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
