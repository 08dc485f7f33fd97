// What the history benches (history.ts, historyClone.ts; issue 91) read of a server: its heap
// by /metrics and RSS once settled, what its RSS is made of, and the times of reads of threads.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, expectStatus, request, startAgentplane, type Agentplane } from './agentplane.ts';
import { delay } from './proc.ts';
import { WORKER_RETIREMENT } from '../../src/runtime/idle/workerRetirement.ts';

export const CACHE_MB = Number(process.env.AGENTPLANE_STORE_CACHE_MB ?? 64);
export const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
export const p = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
/** The bound: 1.5× what the server held fresh, plus the configured cache of paged values. */
export const bound = (fresh: number) => 1.5 * fresh + CACHE_MB * 1048576;

/** A line of the server's /metrics, in bytes. */
export async function metric(ap: Agentplane, name: string): Promise<number> {
  const res = await request(`${ap.url}/metrics`, { headers: ap.headers });
  const line = new RegExp(`^${name}\\s+(\\d+(?:\\.\\d+)?)`, 'm').exec(res.text);
  return line ? Number(line[1]) : NaN;
}

export const heapUsed = (ap: Agentplane) => metric(ap, 'nodejs_heap_size_used_bytes');

/** Heap and RSS once the server has collected (it collects when idle: src/runtime/idle/idleCollector.ts). */
export async function settled(ap: Agentplane, ms = 5_000): Promise<{ heap: number; rss: number }> {
  await delay(ms);
  return { heap: await heapUsed(ap), rss: ap.rss() };
}

/** The server's threads now (/proc/<pid>/status, Linux): each run worker is one of them; undefined elsewhere. */
export function threadCount(ap: Agentplane): number | undefined {
  try {
    const line = /^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${ap.pid}/status`, 'utf8'));
    return line ? Number(line[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Waits for the run workers' idle retirement after runs that ended at `since` (performance.now()):
 * a worker idle WORKER_RETIREMENT.idleMs (30 s) beside another idle one is ended, its memory with
 * it (src/runtime/idle/workerRetirement.ts), so RSS read at about that time reads before or after
 * it by chance (issue 91's bench once read 391.9 MB, once 279.2, for the same history). The
 * retirement asks each worker its heap at idleMs and ends it on the answer, and a retired worker
 * takes its thread with it: so this waits the idle time, then until the server's thread count has
 * not fallen for `quietMs` (each fall a worker retired), at most `maxMs` after `since`. Elsewhere
 * than Linux (no thread count) it waits the idle time and `quietMs`.
 */
export async function afterRetirement(
  ap: Agentplane,
  since: number,
  quietMs = 5_000,
  maxMs = 3 * WORKER_RETIREMENT.idleMs,
): Promise<{ threadsBefore?: number; threadsAfter?: number; waitedMs: number }> {
  const threadsBefore = threadCount(ap);
  let threads = threadsBefore;
  let fellAt = since + WORKER_RETIREMENT.idleMs;
  while (performance.now() < fellAt + quietMs && performance.now() < since + maxMs) {
    await delay(250);
    const now = threadCount(ap);
    if (now !== undefined && threads !== undefined && now < threads) fellAt = Math.max(fellAt, performance.now());
    threads = now;
  }
  return { threadsBefore, threadsAfter: threads, waitedMs: performance.now() - since };
}

/** What the server's RSS is made of (/proc/<pid>/smaps_rollup: its run workers are threads of it), in MB. */
export function rssParts(ap: Agentplane): Record<string, number> {
  const parts: Record<string, number> = {};
  try {
    for (const line of fs.readFileSync(`/proc/${ap.pid}/smaps_rollup`, 'utf8').split('\n')) {
      const m = /^(Rss|Anonymous|Private_Dirty|Shared_Clean|Private_Clean|Swap):\s+(\d+) kB/.exec(line);
      if (m) parts[m[1]!] = Math.round(Number(m[2]) / 102.4) / 10;
    }
  } catch {
    // not Linux: the RSS alone
  }
  return parts;
}

export function startHistoryServer(dataDir: string, work: string, who: { key?: string; tenant?: string } = {}, nodeArgs: string[] = []): Promise<Agentplane> {
  return startAgentplane({ dataDir, workDir: work, ...who, nodeArgs, graphs: { agent: `${path.join(ROOT, 'examples/graphs/agent.ts')}:agent` } });
}

/** The time of each read of each thread's state and history (10 checkpoints). */
export async function readTimes(ap: Agentplane, threads: string[]): Promise<number[]> {
  const times: number[] = [];
  for (const threadId of threads) {
    for (const pathname of [`/threads/${threadId}/state`, `/threads/${threadId}/history`]) {
      const started = performance.now();
      const res = await ap.api(pathname, pathname.endsWith('history') ? { method: 'POST', json: { limit: 10 } } : {});
      times.push(performance.now() - started);
      expectStatus(`read ${pathname}`, res, 200);
    }
  }
  return times;
}

/** The p99 of old threads' reads against a hot thread's (read 100 times after one warm read). */
export async function oldAgainstHot(ap: Agentplane, hot: string, old: string[]): Promise<{ hot: number; old: number }> {
  await readTimes(ap, [hot]);
  const hotTimes: number[] = [];
  for (let i = 0; i < 100; i += 1) hotTimes.push(...(await readTimes(ap, [hot])));
  const oldTimes = await readTimes(ap, old);
  return { hot: p(hotTimes, 0.99), old: p(oldTimes, 0.99) };
}
