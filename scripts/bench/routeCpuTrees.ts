// CPU per request of some routes on several trees at once, to find which commit of a range
// changed a route's cost (issue 86: POST /threads went from 0.71x to 0.64x of d5486dc over a
// session whose commits were never measured one by one): `npx tsx
// scripts/bench/routeCpuTrees.ts <ref|.|path> <ref|.|path> ... [--pairs N] [--rounds N]`. Each
// ref is built once under .bench/ (baseline.ts), `.` is the current tree, a path a built tree.
// Every tree's server is up at once; each route is driven in bursts of the same request count on
// each (BENCH_ROUTE_TREES_REQUESTS, 10,000) after an untimed one, the order rotated every round,
// so the trees share the machine's moments. A burst's figures are the server's CPU µs a request,
// its main thread's and every thread's (schedstat). Per tree: the medians, and the median of
// the rounds' ratios first tree ÷ this one (above 1: this tree is cheaper) with their range.
// `--pairs N` fresh sets of servers (a process's JIT settles differently). BENCH_ROUTE_TREES_ROUTES
// ('POST /threads', the default, or a comma-separated list of routeCpuFigure.ts's routes).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { prepareBaseline } from './baseline.ts';
import { untilIdle } from './writes.ts';
import { median } from './protocolFigures.ts';
import { ROUTE_CPU_ROUTES, type RouteName } from './routeCpuFigure.ts';
import { loadRoute, processCpuPrecise, seed } from './routeCpu.ts';

/** The main thread's CPU in seconds (its task is the process's own id). */
function mainThreadCpu(pid: number): number {
  return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
}

const loadAverage = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { pairs: { type: 'string', default: '1' }, rounds: { type: 'string', default: '8' } },
  });
  const log = (s: string) => console.log(s);
  if (positionals.length < 2) throw new Error('routeCpuTrees.ts: two trees at least (refs, `.` or built paths)');
  const trees = positionals.map((ref) => ({
    ref,
    root: ref === '.' ? ROOT : fs.existsSync(path.join(ref, 'bin', 'agentplane.js')) ? path.resolve(ref) : prepareBaseline(ref, log).root,
  }));
  const amount = Number(process.env.BENCH_ROUTE_TREES_REQUESTS ?? 10000);
  const names = (process.env.BENCH_ROUTE_TREES_ROUTES?.split(',') ?? ['POST /threads']) as RouteName[];
  for (const name of names) if (!ROUTE_CPU_ROUTES.includes(name)) throw new Error(`routeCpuTrees.ts: no route ${name}`);
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'route-trees-'));
  // per route and tree, each burst's µs a request: [every thread, main thread]
  const samples = new Map(names.map((n) => [n, trees.map(() => [] as [number, number][])]));
  try {
    for (let pair = 0; pair < Number(values.pairs); pair += 1) {
      const servers: Agentplane[] = [];
      try {
        for (const [k, tree] of trees.entries()) {
          const dir = path.join(work, `${k}-${pair}`);
          servers.push(await startAgentplane({ dataDir: path.join(dir, 'data'), workDir: dir, root: tree.root === ROOT ? undefined : tree.root }));
        }
        const routes = await Promise.all(servers.map((ap) => seed(ap)));
        for (const ap of servers) await untilIdle(ap);
        for (const name of names) {
          for (const [k, ap] of servers.entries()) await loadRoute(ap, routes[k][name], amount);
          const got = samples.get(name)!;
          for (let round = 0; round < Number(values.rounds); round += 1) {
            // rotated: each tree takes each place in the order as often as the others
            for (let i = 0; i < servers.length; i += 1) {
              const k = (i + round) % servers.length;
              const pid = servers[k].pid;
              const [all, main] = [processCpuPrecise(pid), mainThreadCpu(pid)];
              await loadRoute(servers[k], routes[k][name], amount);
              got[k].push([((processCpuPrecise(pid) - all) / amount) * 1e6, ((mainThreadCpu(pid) - main) / amount) * 1e6]);
            }
          }
          log(`pair ${pair} ${name}: ${Number(values.rounds)} rounds of ${amount} requests done, load ${loadAverage()}`);
        }
      } finally {
        await Promise.all(servers.map((ap) => ap.stop()));
      }
    }
    for (const name of names) {
      const got = samples.get(name)!;
      log(
        `${name}: µs a request (every thread / main thread), medians of ${got[0].length} bursts; ratio ${trees[0].ref} ÷ tree by every thread's CPU, median of the rounds (range)`,
      );
      for (const [k, tree] of trees.entries()) {
        const ratios = got[k].map((b, i) => got[0][i][0] / b[0]);
        log(
          `  ${tree.ref.padEnd(12)} ${median(got[k].map((b) => b[0])).toFixed(1)} / ${median(got[k].map((b) => b[1])).toFixed(1)} µs  ratio ${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
        );
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
