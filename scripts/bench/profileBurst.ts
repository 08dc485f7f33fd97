// `npx tsx scripts/bench/profileBurst.ts [threads] [out dir]`: what a server still holds a
// minute after a burst of large runs (the bench's burst phase, memoryBurst.ts: 25 runs each
// appending a ~400 KB message, over `threads` threads, default 5, the figure that misses its
// target). agentplane runs under `node --heap-prof` (V8's sampling heap profiler, one sample
// every 32 kB allocated), which reports what each thread still holds when its profile is
// written: the main thread's at the stop, after the minute of settling, a run worker's when it
// ends (retired after idle, or at the stop). The main thread's is drawn as a flame graph by
// where it was allocated (docs/profiles/memory-burst.svg by default); printed beside it: the
// RSS samples, each thread's sampled heap, and the main thread's largest holders by function.
// What RSS holds beyond the sampled heaps is outside them: V8's pages kept after the burst's
// garbage, the allocator's, each worker's isolate. The .heapprofile files stay in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { heapAsProfile, mainThreadFile, renderFlameGraph, selfByFunction, type HeapNode } from './flame.ts';
import { BURST_RUNS, BURST_SECONDS, BURST_THREADS, largeGraphSpec, measureBurst } from './memoryBurst.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

const threads = Number(process.argv[2] ?? BURST_THREADS);
const out = path.resolve(ROOT, process.argv[3] ?? 'docs/profiles');
fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-burst-'));
// the profiles stay in .bench/; the server's data directory goes however the bench ends
removeAtExit(path.join(work, 'data'));
const heapDir = path.join(work, 'heap');
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

const ap = await startAgentplane({
  dataDir: path.join(work, 'data'),
  workDir: work,
  graphs: largeGraphSpec(),
  nodeArgs: ['--heap-prof', `--heap-prof-dir=${heapDir}`, '--heap-prof-interval=32768'],
});
let figure;
try {
  figure = await measureBurst(ap, threads, BURST_RUNS);
} finally {
  await ap.stop();
}

const files = fs.readdirSync(heapDir).filter((f) => f.endsWith('.heapprofile'));
const read = (file: string) => heapAsProfile((JSON.parse(fs.readFileSync(path.join(heapDir, file), 'utf8')) as { head: HeapNode }).head);
const heldBy = (file: string) => selfByFunction(read(file)).reduce((sum, [, bytes]) => sum + bytes, 0);
const main = mainThreadFile(files, heapDir);
const profile = read(main);
fs.mkdirSync(out, { recursive: true });
const svg = path.join(out, 'memory-burst.svg');
const title = `agentplane ${BURST_SECONDS} s after ${BURST_RUNS} runs of ~400 KB over ${threads} thread(s) (embedded store, default run workers): the main thread's JS heap by where it was allocated`;
fs.writeFileSync(svg, renderFlameGraph(profile, title, { per: 1048576, name: 'MB', total: 'held (sampled)' }));
console.log(`wrote ${svg}`);
console.log(`RSS: idle ${figure.idleMB} MB, peak ${figure.peakMB} MB, then ${figure.samplesMB.join(' → ')} MB (${figure.ratio}× idle)`);
// one file per thread: `<time>.<pid>.<thread>.<seq>.heapprofile`, the main thread's numbered 0
for (const file of files.sort())
  console.log(`  ${file === main ? 'main thread' : `thread ${file.split('.').at(-3)}`}: ${mb(heldBy(file))} MB held (sampled) when its profile was written`);
const held = selfByFunction(profile);
console.log(`the main thread's most held, by allocating function:`);
for (const [key, bytes] of held.slice(0, 20)) console.log(`  ${String(mb(bytes)).padStart(7)} MB  ${key}`);
