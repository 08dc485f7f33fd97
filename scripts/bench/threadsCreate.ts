// The memory phase's 100k-threads step (run.ts phaseThreads) alone, on one tree, with where it
// goes: `npx tsx scripts/bench/threadsCreate.ts [root] [creates]` (root: a built tree, default
// this one; alternate two trees' runs for an A/B). Prints creates/s, CPU µs a create by thread
// name (main; `node`: V8's helpers and worker threads, e.g. a run worker's warm-up), smaps_rollup
// right after and after the settle, and the data directory's files (is there a snapshot in it?).
// THREADS_WAIT_MS: idle after the start before creating (default 3000; the bench waits none, so
// a start's background work overlaps its creates: 20000 keeps it out). THREADS_SETTLE: 5-s steps
// after (default 6). THREADS_PROFILE=<dir>: --cpu-prof there. THREADS_NODE_ARGS: more node flags.
// THREADS_STRACE=<file>: `strace -c` of the write/read syscalls over the creates.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startAgentplane } from './agentplane.ts';
import { load } from './load.ts';
import { cpuByThread, delay } from './proc.ts';

const root = path.resolve(process.argv[2] ?? '.');
const creates = Number(process.argv[3] ?? 100_000);

/** MB by smaps_rollup's rows that tell heap (anonymous) from mapped files. */
const rollup = (pid: number) =>
  Object.fromEntries(
    fs
      .readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8')
      .split('\n')
      .filter((l) => /^(Rss|Anonymous|Pss_File|Shared_Clean|Private_Dirty):/.test(l))
      .map((l) => [l.split(':')[0], Math.round(Number(l.split(/\s+/)[1]) / 1024)]),
  );

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'threads-create-'));
const profile = process.env.THREADS_PROFILE;
const nodeArgs = [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), ...(process.env.THREADS_NODE_ARGS?.split(' ') ?? [])];
const ap = await startAgentplane({ dataDir: path.join(work, 'data'), workDir: work, root, nodeArgs });
try {
  await delay(Number(process.env.THREADS_WAIT_MS ?? 3000));
  const traceTo = process.env.THREADS_STRACE;
  const syscalls = 'trace=write,writev,pwrite64,fsync,fdatasync,read,pread64';
  const trace = traceTo ? spawn('strace', ['-c', '-f', '-e', syscalls, '-o', traceTo, '-p', String(ap.pid)], { stdio: 'ignore' }) : null;
  if (trace) await delay(1000);
  const before = cpuByThread(ap.pid);
  const started = performance.now();
  const headers = { ...ap.headers, 'content-type': 'application/json' };
  const result = await load({ url: `${ap.url}/threads`, method: 'POST', headers, body: '{}', connections: 16, amount: creates });
  const seconds = (performance.now() - started) / 1000;
  const after = cpuByThread(ap.pid);
  if (trace) {
    trace.kill('SIGINT');
    await new Promise((resolve) => trace.on('exit', resolve));
  }
  const per: Record<string, number> = {};
  for (const [name, ms] of after) per[name] = Math.round(((ms - (before.get(name) ?? 0)) * 10_000) / creates) / 10;
  const all = Object.values(per).reduce((a, b) => a + b, 0);
  console.log(
    `${path.basename(root)}: ${creates} creates at ${Math.round(creates / seconds)}/s (non-2xx ${result.non2xx}), load ${os.loadavg()[0].toFixed(2)}`,
  );
  console.log(`  CPU µs a create: all ${all.toFixed(1)}`, JSON.stringify(per));
  console.log('  right after (MB)', JSON.stringify(rollup(ap.pid)));
  const steps = Number(process.env.THREADS_SETTLE ?? 6);
  for (let i = 0; i < steps; i += 1) await delay(5000);
  console.log(`  after ${steps * 5} s (MB)`, JSON.stringify(rollup(ap.pid)));
  const data = path.join(work, 'data');
  const files = fs.readdirSync(data, { recursive: true }) as string[];
  console.log('  data:', files.map((f) => `${f} ${fs.statSync(path.join(data, f)).size}`).join(', '));
} finally {
  await ap.stop();
  fs.rmSync(work, { recursive: true, force: true });
}
