// `npx tsx scripts/bench/fanoutAllocations.ts [subscribers] [top]`: what the server's main thread
// allocates under the fan-out phase (fanout.ts) as the bench runs it (issue 87) — the young
// generation's scavenges come with it, and under the subscribers they came twice as often as with
// the runs alone. V8's sampling heap profiler (allocSampler.mjs, loaded with `--import`) records
// every allocation, collected ones included, in the runs-alone window and in the loaded window
// (while `/ok` and the first event are sampled); each window's bytes are summed by the first of our
// modules on each allocation's stack (dist/… or src/…), else the allocating function, and printed
// with its collections and the bytes a run (the runs in a window estimated from the phase's rate).
// ALLOC_LEAFMOST=1 sums by the innermost of our functions instead; ALLOC_FOCUS=<function> prints
// where that function's allocations came from (three callers deep). With --survivors only what no
// scavenge collected is kept (allocSampler.mjs, BENCH_ALLOC_SURVIVORS): what the scavenges copied
// twice (survived, then promoted) and what is alive at the window's end, by the same owners.
import fs from 'node:fs';
import path from 'node:path';
import { constants } from 'node:perf_hooks';
import { ROOT } from './agentplane.ts';
import { measureFanout, startFanoutServer } from './fanout.ts';
import { BENCH_GRAPH } from './graph.ts';
import type { HeapNode } from './flame.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

const survivors = process.argv.includes('--survivors');
const [subscribers = 1000, top = 25] = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('--'))
  .map(Number);
if (survivors) process.env.BENCH_ALLOC_SURVIVORS = '1';
fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'fanout-alloc-'));
removeAtExit(path.join(work, 'data'));
const outFile = path.join(work, 'alloc');
process.env.BENCH_ALLOC_OUT = outFile;
const now = () => performance.now();

const ap = await startFanoutServer(work, ROOT, ['--import', path.join(ROOT, 'scripts/bench/allocSampler.mjs')]);
const marks = new Map<string, number>();
let figure;
try {
  figure = await measureFanout(
    { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH },
    { subscribers, threads: 20, shortHistory: 3, longHistory: 30, ceiling: false },
    (line) => console.log(line),
    (name, edge) => {
      marks.set(`${name} ${edge}`, now());
      process.kill(ap.pid, 'SIGUSR2');
    },
  );
  // the second profile is written after its stop's answer
  for (let i = 0; i < 100 && !fs.existsSync(`${outFile}.2`); i += 1) await new Promise((r) => setTimeout(r, 100));
} finally {
  await ap.stop();
}

const kindName: Record<string, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
const mb = (n: number) => Math.round((n / 1e6) * 100) / 100;
const label = (frame: HeapNode['callFrame']) => {
  const mine = /\/(dist|src)\//.test(frame.url) && !frame.url.includes('/node_modules/');
  return mine ? `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*\/(dist|src)\//, '$1/')}:${frame.lineNumber + 1}` : null;
};
// the runs a second under the subscribers, and the events each subscriber read a second
const runRate = figure.runs / (figure.loadedSeconds ?? 1);
function summarise(name: string, file: string, seconds: number, runs: number) {
  const { gcs, profile } = JSON.parse(fs.readFileSync(file, 'utf8')) as { gcs: Record<string, number>; profile: { head: HeapNode } };
  const bytes = new Map<string, number>();
  const callers = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, ours: string | null, stack: string[]) => {
    const mine = label(node.callFrame);
    const here = process.env.ALLOC_LEAFMOST ? (mine ?? ours) : (ours ?? mine);
    const frames = [...stack, mine ?? `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/node_modules\//, '')}`];
    if (node.selfSize > 0) {
      const key = here ?? frames[frames.length - 1]!.trim();
      bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
      if (process.env.ALLOC_FOCUS && frames.some((f) => f.startsWith(`${process.env.ALLOC_FOCUS} `))) {
        const at = frames.findIndex((f) => f.startsWith(`${process.env.ALLOC_FOCUS} `));
        const key2 = frames.slice(Math.max(0, at - 3), frames.length).join(' < ');
        callers.set(key2, (callers.get(key2) ?? 0) + node.selfSize);
      }
    }
    for (const child of node.children) walk(child, here, frames);
  };
  walk(profile.head, null, []);
  const collections = Object.entries(gcs)
    .map(([k, n]) => `${kindName[k] ?? k} ${n} (${Math.round((n / seconds) * 100) / 100}/s)`)
    .join(', ');
  console.log(
    `\n${name}, ${Math.round(seconds * 10) / 10} s, ~${Math.round(runs)} runs: ${survivors ? 'no scavenge collected' : 'allocated'} ${mb(total)} MB (${mb(total / seconds)} MB/s, ${Math.round(total / 1e3 / Math.max(1, runs))} kB a run); collections ${collections || 'none'}`,
  );
  for (const [key, n] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${String(mb(n)).padStart(8)} MB ${String(Math.round(n / 1e3 / Math.max(1, runs))).padStart(5)} kB/run  ${key}`);
  for (const [stack, n] of [...callers].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${String(mb(n)).padStart(8)} MB  ${stack}`);
}
const span = (w: string) => (marks.get(`${w} to`)! - marks.get(`${w} from`)!) / 1000;
// runs alone went at about the loaded rate or faster; the loaded rate is the one the phase measured
summarise('runs alone, no subscriber', `${outFile}.1`, span('runs alone'), runRate * span('runs alone'));
summarise(`runs and ${subscribers} subscribers`, `${outFile}.2`, span('loaded'), runRate * span('loaded'));
console.log(
  `\nphase: ${figure.runs} runs in ${figure.loadedSeconds} s under the subscribers, ${figure.eventsReceived} events received (${Math.round(figure.eventsReceived / Math.max(1, figure.runs))} a run over all subscribers), ${figure.lostEvents} lost; /ok p99 ${figure.loaded.okP99Ms} ms (${figure.okP99Ratio}× idle), delivery p99 ${figure.delivery?.p99Ms} ms`,
);
console.log(`(recorded in ${work})`);
