// `npx tsx scripts/bench/startAt200.ts [--prof] <tree> [more trees] <starts>`: where a start's CPU and fresh
// pages go, by thread, at its first 200 (startAt200Recorder.mjs, preloaded into each start; the bench's
// probe as startAlternate.ts). The trees start in turns, the order flipping every round; prints each
// tree's medians of the main thread's CPU and faults (the start's critical path) beside the whole
// process's, and every start's threads (tid offset from the main thread : faults : CPU ms). --prof also
// writes each start's main-thread .cpuprofile and prints it beside the 200's moment (µs, the
// profile's clock), to cut the profile there.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';

interface Record {
  atUs: number;
  mainCpuMs: number;
  mainFaults: number;
  threads: { tid: number; faults: number; cpuMs: number }[];
  processCpuMs: number;
  faults: number;
  rssMB: number;
  gcs: number;
  gcMs: number;
  startMs: number;
  profile?: string;
}

const args = process.argv.slice(2);
const prof = args.includes('--prof');
const positionals = args.filter((a) => !a.startsWith('--'));
const count = Number(positionals.pop());
const trees = positionals.map((t) => path.resolve(t));
if (!trees.length || !Number.isInteger(count)) throw new Error('usage: startAt200.ts [--prof] <tree> [more trees] <starts>');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'start-at200-'));
const recorder = path.join(ROOT, 'scripts/bench/startAt200Recorder.mjs');
const records = new Map<string, Record[]>(trees.map((t) => [t, []]));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

for (let i = 0; i < count; i += 1) {
  for (const tree of i % 2 ? [...trees].reverse() : trees) {
    const name = `${i}-${trees.indexOf(tree)}`;
    const file = path.join(work, `at200-${name}.json`);
    const profiles = path.join(work, `prof-${name}`);
    const ap = await startAgentplane({
      dataDir: path.join(work, `data-${name}`),
      workDir: work,
      root: tree,
      nodeArgs: ['--import', recorder, ...(prof ? ['--cpu-prof', `--cpu-prof-dir=${profiles}`] : [])],
      env: { AT200_FILE: file },
    });
    // written when the 200 has finished, which the probe may see first
    for (let wait = 0; wait < 400 && !(fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n')); wait += 1)
      await new Promise((r) => setTimeout(r, 5));
    const record = { ...(JSON.parse(fs.readFileSync(file, 'utf8')) as Record), startMs: ap.startMs };
    await ap.stop();
    if (prof)
      record.profile = path.join(
        profiles,
        fs.readdirSync(profiles).find((f) => /\.0\.\d+\.cpuprofile$/.test(f))!,
      );
    records.get(tree)!.push(record);
  }
}
for (const [tree, recs] of records) {
  const m = (key: 'startMs' | 'mainCpuMs' | 'mainFaults' | 'processCpuMs' | 'faults' | 'rssMB' | 'gcs' | 'gcMs') => Math.round(median(recs.map((r) => r[key])));
  const all = (key: 'mainCpuMs' | 'mainFaults' | 'faults') => recs.map((r) => Math.round(r[key])).join(', ');
  console.log(
    `${tree}: start ${m('startMs')} ms; main thread at the 200: CPU ${m('mainCpuMs')} ms (${all('mainCpuMs')}), faults ${m('mainFaults')} (${all('mainFaults')}); process: CPU ${m('processCpuMs')} ms, faults ${m('faults')} (${all('faults')}), RSS ${m('rssMB')} MB; GCs ${m('gcs')}, ${m('gcMs')} ms`,
  );
  for (const r of recs)
    console.log(`  threads ${r.threads.map((t) => `${t.tid}:${t.faults}:${t.cpuMs}`).join(' ')}${r.profile ? `; ${r.profile} (the 200 at ${r.atUs} µs)` : ''}`);
}
console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ')}; the profiles (--prof) are in ${work}`,
);
if (!prof) fs.rmSync(work, { recursive: true, force: true });
