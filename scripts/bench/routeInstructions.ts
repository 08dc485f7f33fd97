// Instructions a request, on the routes the current tree shares with a baseline tree, counted by
// valgrind's callgrind: `npx tsx scripts/bench/routeInstructions.ts [ref] [requests]
// [warm requests] [passes]` (BENCH_BASELINE_ROOT: a baseline worktree made already;
// BENCH_ROUTE_CURRENT_LOG_LEVEL / BENCH_ROUTE_BASELINE_LOG_LEVEL as in routeCpu.ts; --route
// '<route>' repeatable). On a machine shared with other work, CPU time a request moves by 10–30%
// from one burst to the next (routeCpu.ts's rounds), more than a change of a few percent; the
// instructions a request executes do not depend on what else runs. Each server runs under
// callgrind with its counting off (~10× slower, not ~50×) while it starts and while each route is
// warmed (the same untimed requests on both, so V8 has optimised the same code), and on only for
// the timed requests: every thread of the process (the collector's too), over the socket, from
// autocannon outside valgrind; the trees in turns, and each figure the least of its passes. What it does not see: time spent waiting (a syscall's own cost in
// the kernel is not an instruction of the process), and cache misses — a figure to compare code
// paths by, beside routeCpu.ts's time.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { loadRoute, seed } from './routeCpu.ts';
import { untilIdle } from './writes.ts';
import { ROUTE_CPU_ROUTES, type RouteName } from './routeCpuFigure.ts';
import { median } from './protocolFigures.ts';

type Tree = 'current' | 'baseline';

/**
 * Requests of a route taken, uncounted, before each counted burst of it. 6,000, not 1,000: a
 * current server idle 10 s while the other tree's pass runs has its young generation shrunk to
 * its 1 MB floor (the idle rest, idleCollector.ts), and V8 grows it back only once survivors
 * fill it, a few thousand requests on. After 1,000 the counted GETs still met 17 scavenges in
 * 2,000 against d5486dc's 2, each walking the roots (~410,000 instructions for V8's two object
 * caches alone): ~6,000 instructions a request of the current tree's figure were its rest.
 */
const WAKE_REQUESTS = 6000;

/** Runs callgrind_control on the server's valgrind process. */
const callgrind = (ap: Agentplane, ...args: string[]) =>
  execFileSync('callgrind_control', [...args, String(ap.pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * What a dump counted: instructions (`Ir`) of every thread and of the main thread alone, and with
 * BENCH_ROUTE_INSTRUCTIONS_CACHE=1 (callgrind's cache simulation) the main thread's misses of
 * the first-level caches (instruction and data) and of the last level.
 */
export interface Counted {
  all: number;
  main: number;
  mainL1Misses: number;
  mainLLMisses: number;
}

/**
 * The totals of one dump's files, `<file>.<dump>-<thread>` with --separate-threads=yes, the main
 * thread's `-01`: the one thread a request's answer waits for. The collector's helper threads run
 * beside it on another core, so a tree that moves work onto them counts more in all and yet
 * answers as fast; the main thread's count is the one throughput follows (session 36: a POST
 * /threads counted 210k in all on `d5486dc` against this tree's 164k, but 164.6–208k on its main
 * thread against 163–166k, ~10 µs a request on its helpers by /proc, and it answered a little
 * faster all the same).
 */
export function dumpTotals(files: { name: string; text: string }[]): Counted {
  const counted = { all: 0, main: 0, mainL1Misses: 0, mainLLMisses: 0 };
  for (const { name, text } of files) {
    const events = /^events:\s*(.+)$/m.exec(text)?.[1].trim().split(/\s+/) ?? ['Ir'];
    const totals = /^(?:totals|summary):\s*([\d ]+)$/m.exec(text)?.[1].trim().split(/\s+/).map(Number);
    if (!totals) continue;
    const of = (event: string) => totals[events.indexOf(event)] ?? 0;
    counted.all += of('Ir');
    if (!name.endsWith('-01')) continue;
    counted.main += of('Ir');
    counted.mainL1Misses += of('I1mr') + of('D1mr') + of('D1mw');
    counted.mainLLMisses += of('ILmr') + of('DLmr') + of('DLmw');
  }
  return counted;
}

/** What was counted since the last zeroing: a dump, read back from its files (every file but the last dump's is older). */
function countedSinceZero(ap: Agentplane, outFile: string, keepAs?: string): Counted {
  callgrind(ap, '--dump');
  const dir = path.dirname(outFile);
  const dumps = fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(path.basename(outFile) + '.'))
    .map((f) => path.join(dir, f));
  const counted = dumpTotals(dumps.map((file) => ({ name: file, text: fs.readFileSync(file, 'utf8') })));
  for (const file of dumps) {
    // BENCH_ROUTE_INSTRUCTIONS_KEEP: the dumps kept for callgrind_annotate, named by pass, tree and route
    if (keepAs) fs.renameSync(file, `${keepAs}${path.basename(file).slice(path.basename(outFile).length)}`);
    else fs.rmSync(file);
  }
  return counted;
}

export async function countInstructions(
  roots: Record<Tree, string>,
  work: string,
  options: { requests: number; warm: number; passes: number; routes: RouteName[]; env: Partial<Record<Tree, Record<string, string>>> },
  log: (s: string) => void,
): Promise<Map<RouteName, Record<Tree, Counted[]>>> {
  const figures = new Map<RouteName, Record<Tree, Counted[]>>(options.routes.map((r) => [r, { current: [], baseline: [] }]));
  const keep = process.env.BENCH_ROUTE_INSTRUCTIONS_KEEP;
  const servers: { tree: Tree; ap: Agentplane; outFile: string; routes: Awaited<ReturnType<typeof seed>> }[] = [];
  try {
    for (const tree of ['current', 'baseline'] as const) {
      const outFile = path.join(work, `${tree}.callgrind`);
      const ap = await startAgentplane({
        dataDir: path.join(work, tree, 'data'),
        workDir: path.join(work, tree),
        root: roots[tree],
        env: options.env[tree],
        // V8's memory reducer starts full collections when the allocation rate looks low, which it
        // judges by the clock: under valgrind's slowness, in some passes and not others
        // --perf-basic-prof (with BENCH_ROUTE_INSTRUCTIONS_KEEP): V8 names its JIT code in /tmp/perf-<pid>.map,
        // which callgrind's dumps show only as addresses
        nodeArgs: ['--no-memory-reducer', ...(keep ? ['--perf-basic-prof'] : [])],
        wrapper: {
          command: 'valgrind',
          args: [
            '--tool=callgrind',
            '--instr-atstart=no',
            `--callgrind-out-file=${outFile}`,
            '--dump-line=no',
            '--compress-strings=no',
            '--separate-threads=yes',
            // BENCH_ROUTE_INSTRUCTIONS_CACHE=1: the caches simulated too (~2× slower), for misses a request
            ...(process.env.BENCH_ROUTE_INSTRUCTIONS_CACHE === '1' ? ['--cache-sim=yes'] : []),
          ],
          startTimeoutMs: 600_000,
        },
      });
      servers.push({ tree, ap, outFile, routes: await seed(ap) });
      if (keep) log(`  ${tree} server pid ${ap.pid}: JIT names in /tmp/perf-${ap.pid}.map`);
    }
    // every route warmed on both before any is counted, then the processes left to settle: V8's
    // compiler threads and the run workers' warm-up (both counted when on) done first
    for (const s of servers) for (const name of options.routes) await loadRoute(s.ap, s.routes[name], options.warm);
    for (const s of servers) await untilIdle(s.ap, 300_000);
    // the trees in turns, the order flipped each pass: the work a server's timers do in a pass
    // grows with the pass's length, which a busier machine draws out for both alike
    for (let pass = 0; pass < options.passes; pass += 1) {
      for (const s of pass % 2 ? [...servers].reverse() : servers) {
        for (const name of options.routes) {
          // uncounted first: the first requests a server takes after sitting idle while the other
          // tree ran cost 2–4× (V8's code and caches cold again after an idle collection; h86q,
          // findings.md), which made a pass's figure 0.25–3.8× of the next and the least of 3
          // passes still one of those in some runs
          await loadRoute(s.ap, s.routes[name], WAKE_REQUESTS);
          callgrind(s.ap, '--instr=on');
          callgrind(s.ap, '--zero');
          await loadRoute(s.ap, s.routes[name], options.requests);
          const keepAs = keep && path.join(keep, `${pass}-${s.tree}-${name.replace(/[^A-Za-z]+/g, '_')}.callgrind`);
          const counted = countedSinceZero(s.ap, s.outFile, keepAs || undefined);
          callgrind(s.ap, '--instr=off');
          const per = (n: number) => n / options.requests;
          const perRequest = {
            all: per(counted.all),
            main: per(counted.main),
            mainL1Misses: per(counted.mainL1Misses),
            mainLLMisses: per(counted.mainLLMisses),
          };
          figures.get(name)![s.tree].push(perRequest);
          log(
            `  pass ${pass} ${s.tree.padEnd(8)} ${name.padEnd(26)} ${Math.round(counted.all / options.requests)} instructions a request, ${Math.round(counted.main / options.requests)} on the main thread` +
              (counted.mainL1Misses
                ? `, its misses ${Math.round(counted.mainL1Misses / options.requests)} L1, ${Math.round(counted.mainLLMisses / options.requests)} LL`
                : ''),
          );
        }
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.ap.stop()));
  }
  return figures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const routes = args.flatMap((a, i) => (args[i - 1] === '--route' ? [a] : [])) as RouteName[];
  const positional = args.filter((a, i) => a !== '--route' && args[i - 1] !== '--route');
  const [ref = baselineRefFrom([], process.env) ?? 'd5486dc', requests = '2000', warm = '6000', passes = '2'] = positional;
  const log = (s: string) => console.log(s);
  const baselineRoot = process.env.BENCH_BASELINE_ROOT ?? (ref === '.' ? ROOT : prepareBaseline(ref, log).root);
  const level = (name: string) => (process.env[name] ? { LOG_LEVEL: process.env[name]! } : undefined);
  const env = { current: level('BENCH_ROUTE_CURRENT_LOG_LEVEL'), baseline: level('BENCH_ROUTE_BASELINE_LOG_LEVEL') };
  fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'route-instructions-'));
  try {
    log(`current at LOG_LEVEL=${env.current?.LOG_LEVEL ?? 'default (info)'}, ${ref} at LOG_LEVEL=${env.baseline?.LOG_LEVEL ?? 'default (info)'}`);
    const figures = await countInstructions(
      { current: ROOT, baseline: baselineRoot },
      work,
      { requests: Number(requests), warm: Number(warm), passes: Number(passes), routes: routes.length ? routes : [...ROUTE_CPU_ROUTES], env },
      log,
    );
    for (const [name, f] of figures) {
      for (const which of ['all', 'main', 'mainL1Misses', 'mainLLMisses'] as const) {
        if (f.current.every((c) => c[which] === 0)) continue;
        // the least of the passes: a pass can only gain instructions (a timer of the server's, a late compile, a full collection), never lose them
        const [current, baseline] = [Math.min(...f.current.map((c) => c[which])), Math.min(...f.baseline.map((c) => c[which]))];
        const ratios = f.current.map((c, i) => f.baseline[i][which] / c[which]);
        log(
          `${name.padEnd(26)} ${{ all: 'all threads', main: 'main thread', mainL1Misses: 'main thread L1 misses', mainLLMisses: 'main thread LL misses' }[which]}: current ${Math.round(current)}, baseline ${Math.round(baseline)} a request (the least of ${f.current.length} passes): ` +
            `baseline ÷ current ${(baseline / current).toFixed(3)}× (passes' ratios: median ${median(ratios).toFixed(3)}, ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`,
        );
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
