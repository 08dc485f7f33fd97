// Servers under test run as child processes, so their RSS is their own and the load
// generator's work does not count against them. A child is "up" at its first 200.
import fs from 'node:fs';
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
  // own process group: the peer's CLI starts helpers of its own, and stop() ends them all
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 200_000) out = out.slice(-100_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  live.add(child.pid!);
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child.pid!);
      resolve();
    }),
  );
  let gone = false;
  void exited.then(() => (gone = true));

  const deadline = started + (options.timeoutMs ?? 30_000);
  let startMs = -1;
  while (performance.now() < deadline && !gone && !options.failedWhen?.test(out)) {
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
    output: () => out,
    rss: () => treeRss(child.pid!),
    cpu: () => treeCpu(child.pid!),
    stop: () => stopGroup(child, exited),
  };
  if (startMs < 0) {
    await handle.stop();
    throw new Error(
      `${options.name} did not answer 200 on ${options.probePath} within ${options.timeoutMs ?? 30_000} ms${gone ? ' (it exited)' : ''}:\n${out.slice(-3000)}`,
    );
  }
  return handle;
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
