// Servers under test run as child processes, so their RSS is their own and the load
// generator's work does not count against them. A child is "up" at its first 200.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';

export interface Child {
  name: string;
  pid: number;
  port: number;
  url: string;
  /** Milliseconds from spawn() to the first 200 on the probe path. */
  startMs: number;
  output(): string;
  /** Resident set size of the child and every process it started, in bytes. */
  rss(): number;
  /** CPU seconds (user + system) used so far by the child and its descendants. */
  cpu(): number;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  port: number;
  probePath: string;
  probeHeaders?: Record<string, string>;
  timeoutMs?: number;
  /** Output that means the start has failed though the process lives on (a watcher keeps it): stop probing. */
  failedWhen?: RegExp;
}

export { freePort } from '../freePort.ts';

/** Process groups still running, ended if the bench itself stops early (error, Ctrl-C). */
const live = new Set<number>();
let cleanupInstalled = false;

function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.on('exit', () => {
    for (const pid of live) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
}

export async function startChild(options: StartOptions): Promise<Child> {
  installCleanup();
  const url = `http://127.0.0.1:${options.port}`;
  const started = performance.now();
  // The child's stdout and stderr go to a file, read only when asked (output()), not through a
  // pipe this process reads: the load generator runs in this process, and reading a server's
  // access log (a line a request at the default level) through the pipe cost it ~3.2 µs a line
  // (CPU, 400,000 lines of 180 B in 18-KB writes, at load 16), CPU taken from the server's share of
  // a 2-core machine and charged to the server's throughput (routeCpu.ts, the same tree at info
  // against warn: the client's 39.8 against 32.5 µs a GET /ok). Written to a file, the log costs
  // the server its write calls and nothing else. BENCH_CHILD_OUTPUT=pipe: the pipe, as before.
  const piped = process.env.BENCH_CHILD_OUTPUT === 'pipe';
  const outputDir = piped ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'bench-child-'));
  const outputFile = outputDir ? path.join(outputDir, 'output.log') : null;
  const fd = outputFile ? fs.openSync(outputFile, 'a') : null;
  // own process group: the peer's CLI starts helpers of its own, and stop() ends them all
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: fd === null ? ['ignore', 'pipe', 'pipe'] : ['ignore', fd, fd],
    detached: true,
  });
  if (fd !== null) fs.closeSync(fd);
  let out = '';
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  /** The output's last 200,000 bytes at most, as the pipe kept them. */
  const output = () => (outputFile ? tail(outputFile, 200_000) : out);
  live.add(child.pid!);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child.pid!);
      resolve();
    }),
  );
  // the output file goes once the process has: output() after a stop reads what was kept then
  void exited.then(() => {
    if (!outputDir) return;
    out = output();
    fs.rmSync(outputDir, { recursive: true, force: true });
  });
  let gone = false;
  void exited.then(() => (gone = true));

  const deadline = started + (options.timeoutMs ?? 30_000);
  let startMs = -1;
  while (performance.now() < deadline && !gone && !(options.failedWhen && options.failedWhen.test(output()))) {
    if (await probe(url + options.probePath, options.probeHeaders)) {
      startMs = performance.now() - started;
      break;
    }
    await delay(5);
  }
  const handle: Child = {
    name: options.name,
    pid: child.pid!,
    port: options.port,
    url,
    startMs,
    output: () => (gone || !outputFile ? out : output()),
    rss: () => treeRss(child.pid!),
    cpu: () => treeCpu(child.pid!),
    stop: () => stopGroup(child, exited),
  };
  if (startMs < 0) {
    await handle.stop();
    throw new Error(
      `${options.name} did not answer 200 on ${options.probePath} within ${options.timeoutMs ?? 30_000} ms${gone ? ' (it exited)' : ''}:\n${handle.output().slice(-3000)}`,
    );
  }
  return handle;
}

/** The last `max` bytes of a file, as text ('' when it is gone). */
function tail(file: string, max: number): string {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, max);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

async function probe(url: string, headers?: Record<string, string>): Promise<boolean> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

async function stopGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      /* already gone */
    }
  };
  signal('SIGTERM');
  const timer = setTimeout(() => signal('SIGKILL'), 8_000);
  await exited;
  clearTimeout(timer);
  signal('SIGKILL'); // helpers the leader left behind
}

/** RSS of pid and its descendants, from /proc (Linux); falls back to pid alone elsewhere. */
export function treeRss(pid: number): number {
  const pids = [pid, ...descendants(pid)];
  let total = 0;
  for (const p of pids) {
    try {
      const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const m = /VmRSS:\s+(\d+) kB/.exec(status);
      if (m) total += Number(m[1]) * 1024;
    } catch {
      /* exited meanwhile */
    }
  }
  return total;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export function treeCpu(pid: number): number {
  let ticks = 0;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      /* exited meanwhile */
    }
  }
  return ticks / TICKS_PER_SECOND;
}

/** Minor page faults (fresh pages touched) so far by the child and its descendants: on a machine where a fresh page costs ~14 µs, memory touched is time. */
export function treeMinorFaults(pid: number): number {
  let faults = 0;
  for (const p of [pid, ...descendants(pid)]) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      faults += Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[7]); // minflt, stat's 10th field
    } catch {
      /* exited meanwhile */
    }
  }
  return faults;
}

function descendants(root: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const e of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(e));
      children.set(ppid, list);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

export const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** CPU ms of each thread of the process, by thread id, with its name (`main` for the main thread; node names most of the others alike). */
export function cpuByTask(pid: number): Map<string, { name: string; ms: number }> {
  const by = new Map<string, { name: string; ms: number }>();
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const ms = Number(fs.readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      by.set(task, { name: task === String(pid) ? 'main' : fs.readFileSync(`/proc/${pid}/task/${task}/comm`, 'utf8').trim(), ms });
    } catch {
      /* the thread ended meanwhile */
    }
  }
  return by;
}

/** CPU ms by thread name (main, V8's workers, libuv's pool, …), every thread of the process. */
export function cpuByThread(pid: number): Map<string, number> {
  const by = new Map<string, number>();
  for (const { name, ms } of cpuByTask(pid).values()) by.set(name, (by.get(name) ?? 0) + ms);
  return by;
}
