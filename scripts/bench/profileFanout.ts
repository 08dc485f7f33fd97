// `npx tsx scripts/bench/profileFanout.ts [subscribers] [out dir]`: profiles the fan-out
// phase (fanout.ts) as the bench runs it — agentplane started fresh with the stream caps
// raised, echo runs on 20 threads, then the same runs with `subscribers` (default 1,000)
// subscribers reading those threads — under `node --cpu-prof`. The server's main thread is
// drawn as a flame graph (docs/profiles/fanout-main.svg by default) and its busy time is
// printed by what spent it, so the fan-out target's explanation names where the time goes.
// The .cpuprofile files stay in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { measureFanout, startFanoutServer } from './fanout.ts';
import { BENCH_GRAPH } from './graph.ts';
import { mainThreadFile, renderFlameGraph, selfByFunction, type CpuProfile } from './flame.ts';
import { busyStretches } from './busyStretches.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

const subscribers = Number(process.argv[2] ?? 1000);
const out = path.resolve(ROOT, process.argv[3] ?? 'docs/profiles');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-fanout-'));
// the profiles stay in .bench/; the server's data directory goes however the bench ends
removeAtExit(path.join(work, 'data'));
const cpuDir = path.join(work, 'cpu');

const ap = await startFanoutServer(work, ROOT, ['--cpu-prof', `--cpu-prof-dir=${cpuDir}`]);
try {
  const figure = await measureFanout(
    { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH },
    { subscribers, threads: 20, shortHistory: 3, longHistory: 30 },
    (line) => console.log(line),
  );
  console.log(`(profiled, so slower than the bench) /ok p99 ×${figure.okP99Ratio}, first event ×${figure.firstEventRatio}`);
} finally {
  await ap.stop();
}

// the main thread's profile is the process's first (thread index 0)
const files = fs.readdirSync(cpuDir).filter((f) => f.endsWith('.cpuprofile'));
const main = mainThreadFile(files, cpuDir);
const profile = JSON.parse(fs.readFileSync(path.join(cpuDir, main), 'utf8')) as CpuProfile;
fs.mkdirSync(out, { recursive: true });
const svg = path.join(out, 'fanout-main.svg');
fs.writeFileSync(svg, renderFlameGraph(profile, `agentplane, the fan-out phase with ${subscribers} subscribers on 20 threads of echo runs: the main thread`));
console.log(`wrote ${svg}`);

const self = selfByFunction(profile);
const all = self.reduce((sum, [, us]) => sum + us, 0);
const idle = self.find(([key]) => key === '(idle)')?.[1] ?? 0;
console.log(`main thread busy ${((all - idle) / 1e6).toFixed(1)} s of ${(all / 1e6).toFixed(1)} s; most self time:`);
for (const [key, us] of self.filter(([k]) => k !== '(idle)').slice(0, 25)) console.log(`  ${(us / 1e6).toFixed(2).padStart(7)} s  ${key}`);
// a request waits for the turn it arrives in: the longest stretches without an idle sample, and what spent them
const stretches = busyStretches(profile, 5);
console.log(`${stretches.count} busy stretches; lasting at least: ${stretches.atLeast.map(([b, n]) => `${b} ms ${n}`).join(', ')}; the longest:`);
for (const s of stretches.longest) console.log(`  ${s.ms} ms at ${s.atMs} ms: ${s.self.map(([k, ms]) => `${k} ${ms}`).join('; ')}`);
