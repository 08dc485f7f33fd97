// Where a request's CPU goes, on the current tree and a baseline (d5486dc) side by side (issue
// 86: by callgrind GET /ok was within ~5% of d5486dc's instructions while its CPU time was
// 0.7-0.8x): `npx tsx scripts/bench/routeCosts.ts [ref] [rounds] [--strace] [--perf]`. Both
// servers up, each route driven in alternating bursts of BENCH_ROUTE_COSTS_REQUESTS (20,000;
// routeCpu.ts's seed and load) after a warm one; per burst and request, from /proc: the main
// thread's CPU and the other threads' (V8's and libuv's), the context switches (voluntary and
// not) and the minor page faults of every thread. With --strace, one more burst per server and
// route under `strace -c -f`, whose syscall counts are printed a 1,000 requests (strace slows the
// server: its counts, not its times, are the figure). With --perf, both servers start with
// --perf-basic-prof and one more burst each is sampled by `perf record -g -e cpu-clock` (kernel
// and user, every thread): µs a request by binary ([kernel], node, JIT code, libc), the symbols
// that differ most, and by the innermost JS function on the stack (rough: a stack that passes C++
// without frame pointers gives a stale frame, and TurboFan's inlining moves time between
// functions from one process to the next). BENCH_ROUTE_COSTS_ROUTES ('GET /ok,POST /threads')
// takes some routes; BENCH_BASELINE_ROOT another built tree as the baseline. findings.md
// ("h86q, session 9") has what it showed.
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT, startAgentplane, type Agentplane } from './agentplane.ts';
import { baselineRefFrom, prepareBaseline } from './baseline.ts';
import { untilIdle } from './writes.ts';
import { median } from './protocolFigures.ts';
import { ROUTE_CPU_ROUTES } from './routeCpuFigure.ts';
import { loadRoute, seed } from './routeCpu.ts';

interface Counters {
  /** ns of CPU by thread name. */
  cpu: Map<string, number>;
  switches: number;
  involuntary: number;
  faults: number;
}

function counters(pid: number): Counters {
  const cpu = new Map<string, number>();
  let switches = 0;
  let involuntary = 0;
  let faults = 0;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const dir = `/proc/${pid}/task/${task}`;
      // node names every thread "node": the main thread (the process's own id) apart from the rest (V8's and libuv's)
      const name = task === String(pid) ? 'main thread' : 'other threads';
      cpu.set(name, (cpu.get(name) ?? 0) + Number(fs.readFileSync(`${dir}/schedstat`, 'utf8').split(' ')[0]));
      const status = fs.readFileSync(`${dir}/status`, 'utf8');
      switches += Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(status)![1]);
      involuntary += Number(/nonvoluntary_ctxt_switches:\s+(\d+)/.exec(status)![1]);
      // minflt is the 10th field after the command's closing parenthesis
      faults += Number(fs.readFileSync(`${dir}/stat`, 'utf8').split(') ')[1].split(' ')[7]);
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return { cpu, switches, involuntary, faults };
}

function perRequest(before: Counters, after: Counters, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, ns] of after.cpu) out[`µs ${name}`] = (ns - (before.cpu.get(name) ?? 0)) / 1000 / requests;
  out['switches'] = (after.switches - before.switches) / requests;
  out['involuntary'] = (after.involuntary - before.involuntary) / requests;
  out['faults'] = (after.faults - before.faults) / requests;
  return out;
}

/** `strace -c -f` attached to `pid` over `run`: each syscall's count. */
async function straceCounts(pid: number, run: () => Promise<unknown>): Promise<Map<string, number>> {
  const out = path.join(fs.mkdtempSync('/tmp/route-costs-'), 'strace');
  const tracer = spawn('strace', ['-c', '-f', '-o', out, '-p', String(pid)], { stdio: 'ignore' });
  try {
    // strace says nothing when attached: give it a moment to reach every thread
    await new Promise((resolve) => setTimeout(resolve, 500));
    await run();
  } finally {
    tracer.kill('SIGINT');
    await new Promise((resolve) => tracer.once('exit', resolve));
  }
  try {
    const counts = new Map<string, number>();
    for (const line of fs.readFileSync(out, 'utf8').split('\n')) {
      const cols = line.trim().split(/\s+/);
      // % time, seconds, usecs/call, calls, [errors], syscall
      if (cols.length >= 5 && /^\d+$/.test(cols[3]) && cols.at(-1) !== 'total') counts.set(cols.at(-1)!, Number(cols[3]));
    }
    return counts;
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

/** `perf record` of `pid` over `run`, then the samples by binary and by symbol, in µs of CPU a request (`requests`). */
async function perfProfile(
  pid: number,
  requests: number,
  run: () => Promise<unknown>,
): Promise<{ dsos: Map<string, number>; symbols: Map<string, number>; callers: Map<string, number> }> {
  const dir = fs.mkdtempSync('/tmp/route-costs-');
  const data = path.join(dir, 'perf.data');
  const hz = 4000;
  const recorder = spawn('perf', ['record', '-q', '-g', '-e', 'cpu-clock', '-F', String(hz), '-o', data, '-p', String(pid)], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await run();
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  } finally {
    recorder.kill('SIGINT');
    await new Promise((resolve) => recorder.once('exit', resolve));
  }
  /** The same function in both trees under one name: no thread id, tree path, line or tier mark. */
  const normal = (name: string) =>
    name
      .replace(/\[JIT\] tid \d+/, '[JIT]')
      .replace(/JS:[*~^+]?/, 'JS:')
      .replace(/file:\/\/\S*?\/(dist\/|\.bench\/baseline-[0-9a-f]+\/)?(src|node_modules)\//, '$2/')
      .replace(/(\.[jt]s):\d+:\d+/, '$1')
      .replace(/\s+/g, ' ');
  /** Each sample given to the innermost JS function on its stack: its own code and the builtins, runtime and collections it called. */
  const byCaller = () => {
    const out = spawnSync('perf', ['script', '-i', data, '-F', 'ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
    if (process.env.BENCH_ROUTE_COSTS_KEEP) fs.writeFileSync(path.join(dir, 'script.txt'), out.stdout);
    const map = new Map<string, number>();
    for (const sample of out.stdout.split(/\n\s*\n/)) {
      const frames = sample
        .split('\n')
        .map((l) =>
          l
            .trim()
            .replace(/^[0-9a-f]+\s+/, '')
            .replace(/ \([^()]*\)$/, ''),
        )
        .filter(Boolean);
      if (frames.length === 0) continue;
      const js = frames.find((f) => f.startsWith('JS:'));
      const key = js ? normal(js) : `(no JS frame) ${normal(frames[0])}`;
      map.set(key, (map.get(key) ?? 0) + (1 / hz / requests) * 1e6);
    }
    return map;
  };
  const tally = (sort: string) => {
    const out = spawnSync('perf', ['report', '-i', data, '--stdio', '--no-children', '-F', 'sample,' + sort, '--sort', sort], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    });
    const map = new Map<string, number>();
    for (const line of out.stdout.split('\n')) {
      const m = /^\s+(\d+)\s+(.+?)\s*$/.exec(line);
      // each sample is 1/hz s of CPU
      if (m) {
        const key = normal(m[2]);
        map.set(key, (map.get(key) ?? 0) + (Number(m[1]) / hz / requests) * 1e6);
      }
    }
    return map;
  };
  try {
    return { dsos: tally('dso'), symbols: tally('dso,sym'), callers: byCaller() };
  } finally {
    // BENCH_ROUTE_COSTS_KEEP: the perf.data kept, and its stacks as `perf script` read them (script.txt; the JIT map is gone after)
    if (process.env.BENCH_ROUTE_COSTS_KEEP) {
      console.log(`  perf data kept: ${data}`);
    } else fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
  const withStrace = process.argv.includes('--strace');
  const withPerf = process.argv.includes('--perf');
  const [ref = baselineRefFrom([], process.env) ?? 'd5486dc', rounds = '4'] = args;
  const amount = Number(process.env.BENCH_ROUTE_COSTS_REQUESTS ?? 20000);
  const log = (s: string) => console.log(s);
  const baselineRoot = process.env.BENCH_BASELINE_ROOT ?? prepareBaseline(ref, log).root;
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'route-costs-'));
  const servers: { tree: string; ap: Agentplane }[] = [];
  try {
    for (const tree of ['current', 'baseline']) {
      const root = tree === 'baseline' ? baselineRoot : undefined;
      const nodeArgs = withPerf ? ['--perf-basic-prof'] : [];
      servers.push({ tree, ap: await startAgentplane({ dataDir: path.join(work, tree, 'data'), workDir: path.join(work, tree), root, nodeArgs }) });
    }
    const routes = await Promise.all(servers.map((s) => seed(s.ap)));
    for (const s of servers) await untilIdle(s.ap);
    // BENCH_ROUTE_COSTS_ROUTES: some of the routes only ('GET /ok,POST /threads')
    const only = process.env.BENCH_ROUTE_COSTS_ROUTES?.split(',');
    for (const name of ROUTE_CPU_ROUTES.filter((r) => !only || only.includes(r))) {
      // warm: both trees' code for the route optimised before anything is counted
      for (const [k, s] of servers.entries()) await loadRoute(s.ap, routes[k][name], amount);
      const samples = servers.map(() => [] as Record<string, number>[]);
      for (let round = 0; round < Number(rounds); round += 1) {
        for (const k of round % 2 ? [1, 0] : [0, 1]) {
          const pid = servers[k].ap.pid;
          const before = counters(pid);
          await loadRoute(servers[k].ap, routes[k][name], amount);
          samples[k].push(perRequest(before, counters(pid), amount));
        }
      }
      log(`${name} (${amount} requests a burst, ${rounds} rounds, medians; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`);
      const keys = [...new Set(samples.flatMap((s) => s.flatMap((r) => Object.keys(r))))].sort();
      for (const key of keys) {
        const cells = samples.map((s) => median(s.map((r) => r[key] ?? 0)).toFixed(3));
        log(`  ${key.padEnd(22)} ${servers.map((s, k) => `${s.tree} ${cells[k]}`).join('  ')}`);
      }
      if (withStrace) {
        const counts: Map<string, number>[] = [];
        for (const [k, s] of servers.entries()) counts.push(await straceCounts(s.ap.pid, () => loadRoute(s.ap, routes[k][name], 5000)));
        const calls = [...new Set(counts.flatMap((c) => [...c.keys()]))].sort();
        log(`  syscalls a 1,000 requests (strace -c -f, 5,000 requests):`);
        for (const call of calls)
          log(`    ${call.padEnd(20)} ${servers.map((s, k) => `${s.tree} ${(((counts[k].get(call) ?? 0) / 5000) * 1000).toFixed(0)}`).join('  ')}`);
      }
      if (withPerf) {
        const profiles: Awaited<ReturnType<typeof perfProfile>>[] = [];
        for (const [k, s] of servers.entries()) profiles.push(await perfProfile(s.ap.pid, amount, () => loadRoute(s.ap, routes[k][name], amount)));
        for (const what of ['dsos', 'symbols', 'callers'] as const) {
          const keys = [...new Set(profiles.flatMap((p) => [...p[what].keys()]))];
          const of = (k: number, key: string) => profiles[k][what].get(key) ?? 0;
          // the symbols where the two differ most, either way
          const shown = what === 'dsos' ? keys : keys.sort((a, b) => Math.abs(of(0, b) - of(1, b)) - Math.abs(of(0, a) - of(1, a))).slice(0, 40);
          const by = { dsos: 'binary', symbols: 'symbol (the 40 that differ most)', callers: 'innermost JS function (the 40 that differ most)' }[what];
          log(`  perf, µs a request by ${by}:`);
          for (const key of shown) log(`    ${servers.map((s, k) => `${s.tree} ${of(k, key).toFixed(2).padStart(7)}`).join('  ')}  ${key.slice(0, 120)}`);
        }
      }
    }
  } finally {
    await Promise.all(servers.map((s) => s.ap.stop()));
    for (const s of servers) fs.rmSync(`/tmp/perf-${s.ap.pid}.map`, { force: true });
    fs.rmSync(work, { recursive: true, force: true });
  }
}
