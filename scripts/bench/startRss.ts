// `npx tsx scripts/bench/startRss.ts <starts> <tree> [tree...]`: issue 86's idle RSS of a start,
// over time. startAlternate.ts reads the RSS once, a second after the first 200, while the start's
// background warm-ups (a run worker, the schemas' TypeScript worker, the run path) may still be
// under way: how far they got in that second depends on the load. Here each tree (built, started
// as startAlternate.ts starts it, in turns, the order flipped every round) is read every 250 ms
// for START_RSS_SECONDS (12) after its first 200: the process's RSS, its child processes' (the
// esbuild service), its thread count, and the moment the process last used over a twentieth of a
// core over half a second ("settled"). Printed per tree: the medians at 1 s (startAlternate's
// figure), at the peak and at the end. START_RSS_ENV (`NAME=value NAME=value`) is set in every
// server's environment (AGENTPLANE_SCHEMA_WARMUP=0: what a warm-up holds).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { delay } from './proc.ts';

const count = Number(process.argv[2] ?? 5);
const roots = process.argv.slice(3).map((t) => path.resolve(t));
if (roots.length === 0) throw new Error('usage: startRss.ts <starts> <tree> [tree...]');
const SECONDS = Number(process.env.START_RSS_SECONDS ?? 12);
const MB = 2 ** 20;
const ENV = Object.fromEntries(
  (process.env.START_RSS_ENV ?? '')
    .split(' ')
    .filter(Boolean)
    .map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** Bytes of RSS of one process (0 once it is gone). */
function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

const threadsOf = (pid: number) => {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
};

interface Reading {
  at: number;
  own: number;
  children: number;
  threads: number;
}

const results = new Map(roots.map((root) => [root, [] as Reading[][]]));
fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'start-rss-'));
try {
  console.log(`${count} starts of ${roots.length} tree(s), read for ${SECONDS} s; load ${load()}`);
  for (let i = 0; i < count; i += 1) {
    for (const root of i % 2 === 0 ? roots : [...roots].reverse()) {
      const ap = await startAgentplane({ dataDir: path.join(work, `data-${i}-${roots.indexOf(root)}`), workDir: work, root, env: ENV });
      const readings: Reading[] = [];
      const t0 = performance.now();
      try {
        for (let at = 0.25; at <= SECONDS; at += 0.25) {
          await delay(Math.max(0, at * 1000 - (performance.now() - t0)));
          readings.push({
            at,
            own: rssOf(ap.pid),
            children: childrenOf(ap.pid).reduce((sum, pid) => sum + rssOf(pid), 0),
            threads: threadsOf(ap.pid),
          });
        }
      } finally {
        await ap.stop();
      }
      results.get(root)!.push(readings);
      const at = (s: number) => readings.find((r) => r.at === s)!;
      const fmt = (r: Reading) => `${((r.own + r.children) / MB).toFixed(1)} (children ${(r.children / MB).toFixed(1)}, ${r.threads} threads)`;
      const peak = readings.reduce((a, b) => (b.own + b.children > a.own + a.children ? b : a));
      console.log(
        `${path.basename(root)} #${i + 1}: start ${Math.round(ap.startMs)} ms; RSS MB at 1 s ${fmt(at(1))}, 3 s ${fmt(at(3))}, peak ${fmt(peak)} at ${peak.at} s, at ${SECONDS} s ${fmt(readings.at(-1)!)}; load ${load()}`,
      );
    }
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
for (const [root, starts] of results) {
  const total = (r: Reading) => (r.own + r.children) / MB;
  const at1 = starts.map((s) => total(s.find((r) => r.at === 1)!));
  const peak = starts.map((s) => Math.max(...s.map(total)));
  const end = starts.map((s) => total(s.at(-1)!));
  const children = starts.map((s) => s.at(-1)!.children / MB);
  console.log(
    `${path.basename(root)}: RSS median at 1 s ${median(at1).toFixed(1)} MB (${at1.map((x) => x.toFixed(0)).join(', ')}), peak ${median(peak).toFixed(1)}, ` +
      `at ${SECONDS} s ${median(end).toFixed(1)} (${end.map((x) => x.toFixed(0)).join(', ')}), of it children ${median(children).toFixed(1)}`,
  );
}
console.log(`load average ${load()}`);
