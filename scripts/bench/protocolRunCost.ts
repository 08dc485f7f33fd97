// `npx tsx scripts/bench/protocolRunCost.ts [runs] [subscribers] [kinds]`: what the server's main
// thread spends on one run started by the thread protocol's `run.start` against one started by
// the plain REST `POST /threads/{id}/runs`, on the fan-out phase's graph and threads (issue 87).
// For each kind (`protocol`, `rest`; default both, in that order) a fresh server under
// `--cpu-prof` takes a warm-up of 100 runs, then `runs` runs (default 400) on 20 threads, each
// thread one run after another, with `subscribers` (default 0) protocol v2 subscribers on those
// threads. Printed per kind: the main thread's CPU per run (its schedstat: load-independent as
// far as the runs are the same) and its profile's self time per run over that window, by function.
// WARM=<n>: runs before the measured ones (default 100: the threads' history grows with it).
// TREES=<ref>,<ref>… (`.` this tree; a ref is built under .bench/ as the bench's baselines are)
// and ROUNDS=<n>: the trees in alternating rounds, without the profiler (its CPU only, the main thread's and
// every thread's: the run workers' serialising of the events is in the latter).
// KEEP=<dir>: the main thread's profiles kept, with their windows.
// CALLGRIND=1 (with TREES): each server under callgrind, counting only the measured runs: the
// main thread's instructions a run, whatever else the machine runs. THREADS=<n>: threads (20).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { newThread, protocolRun, startFanoutServer } from './fanout.ts';
import { json, type FanoutTarget } from './fanoutClients.ts';
import { openSubscribers } from './fanoutSubscribers.ts';
import { BENCH_GRAPH } from './graph.ts';
import { mainThreadFile, type CpuProfile } from './flame.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';
import { prepareBaseline } from './baseline.ts';
import { startAgentplane } from './agentplane.ts';
import { execFileSync } from 'node:child_process';

const [runsArg = '400', subsArg = '0', kindsArg = 'protocol,rest'] = process.argv.slice(2);
const runs = Number(runsArg);
const subscribers = Number(subsArg);
const THREADS = Number(process.env.THREADS ?? 20);
const CALLGRIND = process.env.CALLGRIND === '1';
const TOP = Number(process.env.TOP ?? 30);

const threadCpuMs = (pid: number, tid: number | string) => Number(fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
const mainCpuMs = (pid: number) => threadCpuMs(pid, pid);
/** Every thread's CPU (the run workers', V8's and libuv's with the main thread's): a thread gone meanwhile is left out. */
const processCpuMs = (pid: number) =>
  fs.readdirSync(`/proc/${pid}/task`).reduce((sum, tid) => {
    try {
      return sum + threadCpuMs(pid, tid);
    } catch {
      return sum;
    }
  }, 0);
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
/** What the process has written (files and sockets alike: /proc's wchar). */
const writtenBytes = (pid: number) => Number(/^wchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

async function restRun(t: FanoutTarget, thread: string): Promise<boolean> {
  const res = await json(t, `/threads/${thread}/runs`, {
    assistant_id: t.assistant,
    input: { messages: [{ role: 'user', content: `fan-out ${Math.random()}` }] },
  });
  const run = (await res.json()) as { run_id?: string };
  if (!run.run_id) throw new Error(`POST runs: HTTP ${res.status} ${JSON.stringify(run).slice(0, 200)}`);
  const joined = await fetch(`${t.url}/threads/${thread}/runs/${run.run_id}/join`, { headers: t.headers });
  await joined.arrayBuffer();
  return joined.status === 200;
}

/** The profile's self time by function over [fromUs, toUs] of the monotonic clock. */
function selfInWindow(profile: CpuProfile & { startTime: number }, fromUs: number, toUs: number): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) return;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url ? `${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  });
  return self;
}

const trees = (process.env.TREES ?? '.').split(',').map((ref) => (ref === '.' ? { ref, root: ROOT } : { ref, root: prepareBaseline(ref, console.log).root }));
const profiled = process.env.TREES === undefined;
const rounds = Number(process.env.ROUNDS ?? 1);
for (let round = 0; round < rounds; round += 1) for (const tree of trees) for (const kind of kindsArg.split(',')) await measure(kind, tree.ref, tree.root);

async function measure(kind: string, ref: string, root: string): Promise<void> {
  const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'protocol-run-cost-'));
  removeAtExit(path.join(work, 'data'));
  const cpuDir = path.join(work, 'cpu');
  const cgOut = path.join(work, 'cg');
  const ap = CALLGRIND
    ? await startAgentplane({
        dataDir: path.join(work, 'data'),
        workDir: work,
        root,
        env: { AGENTPLANE_MAX_STREAMS_PER_CLIENT: '5000', AGENTPLANE_MAX_STREAMS: '5000' },
        nodeArgs: ['--no-memory-reducer'],
        wrapper: {
          command: 'valgrind',
          args: ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${cgOut}`, '--dump-line=no'],
          startTimeoutMs: 600_000,
        },
      })
    : await startFanoutServer(work, root, profiled ? ['--cpu-prof', `--cpu-prof-dir=${cpuDir}`] : []);
  const cg = (...args: string[]) => execFileSync('callgrind_control', [...args, String(ap.pid)], { stdio: 'ignore' });
  let mainInstructions = 0;
  let window: [number, number] = [0, 0];
  let cpu = 0;
  let allCpu = 0;
  let written = 0;
  const t = { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH };
  const one = kind === 'rest' ? restRun : protocolRun;
  try {
    const threads = await Promise.all(Array.from({ length: THREADS }, () => newThread(t)));
    const drive = async (count: number) => {
      let left = count;
      await Promise.all(
        threads.map(async (thread) => {
          while (left > 0) {
            left -= 1;
            if (!(await one(t, thread))) throw new Error('a run failed');
          }
        }),
      );
    };
    await drive(Number(process.env.WARM ?? 100));
    const held = subscribers > 0 ? await openSubscribers({ target: t, threads, subscribers }) : null;
    await new Promise((r) => setTimeout(r, 500));
    const from = monotonicUs();
    if (CALLGRIND) {
      cg('--instr=on');
      cg('--zero');
    }
    const cpuFrom = mainCpuMs(ap.pid);
    const allFrom = processCpuMs(ap.pid);
    const writtenFrom = writtenBytes(ap.pid);
    await drive(runs);
    cpu = mainCpuMs(ap.pid) - cpuFrom;
    allCpu = processCpuMs(ap.pid) - allFrom;
    written = writtenBytes(ap.pid) - writtenFrom;
    if (CALLGRIND) {
      cg('--dump');
      cg('--instr=off');
      // thread 1 is the main thread: its dump's totals
      const file = fs.readdirSync(work).find((f) => f.startsWith('cg') && f.endsWith('-01'));
      mainInstructions = Number(/^(?:totals|summary):\s*(\d+)/m.exec(fs.readFileSync(path.join(work, file!), 'utf8'))![1]);
    }
    window = [from, monotonicUs()];
    const closed = await held?.close();
    if (closed) console.log(`${kind}: subscribers opened ${held!.opened}, events received ${closed.eventsReceived}, lost ${closed.lost}`);
  } finally {
    await ap.stop();
  }
  if (!profiled) {
    const counted = CALLGRIND ? `, ${Math.round(mainInstructions / runs / 1000)}k instructions a run` : '';
    console.log(
      `${ref} ${kind}: ${runs} runs, ${subscribers} subscribers, load ${load()}: main thread CPU ${(cpu / runs).toFixed(2)} ms a run${counted}, every thread ${(allCpu / runs).toFixed(2)} (the others ${((allCpu - cpu) / runs).toFixed(2)}), written ${Math.round(written / runs / 1024)} KB a run`,
    );
    return;
  }
  const files = fs.readdirSync(cpuDir).filter((f) => f.endsWith('.cpuprofile'));
  const profile = JSON.parse(fs.readFileSync(path.join(cpuDir, mainThreadFile(files, cpuDir)), 'utf8'));
  const self = [...selfInWindow(profile, window[0], window[1])].sort((a, b) => b[1] - a[1]);
  const busy = self.filter(([k]) => k !== '(idle)').reduce((s, [, us]) => s + us, 0);
  console.log(
    `${kind}: ${runs} runs, ${subscribers} subscribers, load ${load()}: main thread CPU ${(cpu / runs).toFixed(2)} ms a run (schedstat), profile busy ${(busy / runs / 1000).toFixed(2)} ms a run; self µs a run:`,
  );
  for (const [key, us] of self.filter(([k]) => k !== '(idle)').slice(0, TOP)) console.log(`  ${(us / runs).toFixed(0).padStart(6)}  ${key}`);
  // the directory named may not exist yet (the copy failed with ENOENT after the whole measurement)
  if (process.env.KEEP) fs.mkdirSync(process.env.KEEP, { recursive: true });
  if (process.env.KEEP) fs.copyFileSync(path.join(cpuDir, mainThreadFile(files, cpuDir)), path.join(process.env.KEEP, `${kind}-${subscribers}.cpuprofile`));
  if (process.env.KEEP) fs.writeFileSync(path.join(process.env.KEEP, `${kind}-${subscribers}.window.json`), JSON.stringify(window));
}
