// `npx tsx scripts/bench/firstRunProfile.ts <profile dir> <windows.json> [top]`: where a start's
// first run spends more CPU than its later runs (issue 89), thread by thread. Made from a run of
// firstRun.ts with FIRST_RUN_NODE_ARGS='--cpu-prof --cpu-prof-dir=<dir> --cpu-prof-interval=100'
// and FIRST_RUN_WINDOWS=<windows.json> (one start, or several: each profile is matched to the
// round whose runs fall inside it). A profile's sample times and the windows are both µs of the
// monotonic clock. For each profile (the main thread's, each worker's) the self time of every
// function (name, file, line) inside each run's window (request sent to the stream's end, or to
// its first token with FIRST_RUN_PROFILE_TO=first) is
// summed; printed for each thread (by its number in the profiles' names: 0 is the main thread)
// are each start's first run and its later runs' median, then the functions whose time in the
// first run exceeds the median of the later runs' most, averaged over the starts.
import fs from 'node:fs';
import path from 'node:path';

interface CpuNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: CpuNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface Window {
  round: number;
  run: number;
  sent: number;
  first: number;
  end: number;
}

const [dir, windowsFile, topArg] = process.argv.slice(2);
const top = Number(topArg ?? 15);
const TO_FIRST = process.env.FIRST_RUN_PROFILE_TO === 'first';
const windows = JSON.parse(fs.readFileSync(windowsFile, 'utf8')) as Window[];

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const frameName = (node: CpuNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${path.basename(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`.replace(/ :0$/, '');

/** Self time (µs) by function in each run's window of one profile, and its thread's number (0: the main thread). */
function runsOf(file: string): { thread: string; perRun: Map<string, number>[] } | undefined {
  const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as CpuProfile;
  const runs = windows.filter((w) => w.sent >= profile.startTime && w.end <= profile.endTime).sort((a, b) => a.run - b.run);
  if (runs.length < 2) return undefined;
  const names = new Map(profile.nodes.map((n) => [n.id, frameName(n)]));
  const perRun = runs.map(() => new Map<string, number>());
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    // a sample stands for the interval up to the next one
    const interval = profile.timeDeltas[i + 1] ?? 0;
    const r = runs.findIndex((w) => t >= w.sent && t < (TO_FIRST ? w.first : w.end));
    if (r < 0) continue;
    const name = names.get(profile.samples[i])!;
    if (name.startsWith('(idle)')) continue;
    perRun[r].set(name, (perRun[r].get(name) ?? 0) + interval);
  }
  // CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile
  return { thread: file.split('.')[4], perRun };
}

// each thread's runs, over every start profiled
const byThread = new Map<string, Map<string, number>[][]>();
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const found = runsOf(file);
  if (found) byThread.set(found.thread, [...(byThread.get(found.thread) ?? []), found.perRun]);
}
for (const [thread, starts] of [...byThread].sort()) {
  const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) / 1000;
  const firsts = starts.map((runs) => total(runs[0]));
  const laters = starts.map((runs) => median(runs.slice(1).map(total)));
  if (Math.max(...firsts, ...laters) < 1) continue;
  console.log(
    `thread ${thread === '0' ? '0 (main)' : thread}, ${starts.length} start(s): first run ${firsts.map((x) => x.toFixed(1)).join(' ')} ms, ` +
      `later runs' median ${laters.map((x) => x.toFixed(1)).join(' ')} ms (idle left out)`,
  );
  const all = new Set(starts.flatMap((runs) => runs.flatMap((m) => [...m.keys()])));
  const rows = [...all]
    .map((name) => {
      // per start: the first run's time against the later runs' median, averaged over the starts
      const first = starts.reduce((sum, runs) => sum + (runs[0].get(name) ?? 0), 0) / starts.length / 1000;
      const later = starts.reduce((sum, runs) => sum + median(runs.slice(1).map((m) => m.get(name) ?? 0)), 0) / starts.length / 1000;
      return { name, first, later, more: first - later };
    })
    .sort((a, b) => b.more - a.more)
    .slice(0, top);
  for (const row of rows) console.log(`  ${row.more.toFixed(2).padStart(6)} ms more (${row.first.toFixed(2)} against ${row.later.toFixed(2)})  ${row.name}`);
}
