// `npx tsx scripts/bench/fanoutSurvivors.ts [--loaded] [subscribers] [gap ms]` (issue 87): what the
// server's main thread keeps alive for about a scavenge interval under the fan-out phase
// (fanout.ts) — what its scavenges copy — named by who holds it. A few seconds into the runs-alone
// window (with --loaded: the window under the subscribers) the server writes a heap snapshot, runs
// `gap ms` (default 1,000) and writes another (snapshotPair.mjs); the objects of the second not in
// the first (heapNewObjects.ts) are printed by kind and by owner, beside the bytes the scavenges
// in the gap copied. A snapshot stops the server for a second or more and starts with a full
// collection, so the gap begins with an empty young generation; its figures are a count, the
// load on the machine does not change them. `--tree=<dir>`: another built tree's server.
// FANOUT_SURVIVORS_KEEP=<dir> keeps the two snapshots there. FANOUT_SURVIVORS_AFTER_MS (default 3,000):
// how long into the window the first snapshot is taken; the window ends after its 400 `/ok`
// samples, which a fast server (at a low load) takes in under 3 s, and the pair then falls past it.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './agentplane.ts';
import { measureFanout, startFanoutServer } from './fanout.ts';
import { BENCH_GRAPH } from './graph.ts';
import { delay } from './proc.ts';
import { idsOf, newObjects, newObjectsReport, type HeapSnapshot } from './heapNewObjects.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

const args = process.argv.slice(2);
const loaded = args.includes('--loaded');
const tree = args.find((a) => a.startsWith('--tree='))?.slice('--tree='.length) ?? ROOT;
const [subscribers = 1000, gapMs = 1000] = args.filter((a) => !a.startsWith('--')).map(Number);
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'fanout-survivors-'));
removeAtExit(work);
const snapshots = path.join(work, 'snapshots');
fs.mkdirSync(snapshots);
process.env.BENCH_SNAPSHOT_DIR = snapshots;
process.env.BENCH_SNAPSHOT_GAP_MS = String(gapMs);
const pairFile = path.join(snapshots, 'pair.json');
const afterMs = Number(process.env.FANOUT_SURVIVORS_AFTER_MS ?? 3_000);

const ap = await startFanoutServer(work, tree, ['--import', path.join(ROOT, 'scripts/bench/snapshotPair.mjs')]);
const window = loaded ? 'loaded' : 'runs alone';
let asked: Promise<void> | undefined;
// the snapshots are all this needs: the phase is left once they are written, and what it still
// had under way fails with the server stopped (not this script's concern)
let stopped = false;
process.on('unhandledRejection', (err) => {
  if (!stopped) throw err;
});
try {
  const phase = measureFanout(
    { url: ap.url, headers: ap.headers, assistant: BENCH_GRAPH },
    { subscribers, threads: 20, shortHistory: 3, longHistory: 30, ceiling: false },
    (line) => console.log(line),
    (name, edge) => {
      if (name !== window || edge !== 'from') return;
      // a few seconds in (afterMs): the runs (and the subscribers' passes) at their pace
      asked = delay(afterMs).then(() => {
        console.log(`  snapshots asked ${window === 'loaded' ? 'under the subscribers' : 'with the runs alone'}`);
        process.kill(ap.pid, 'SIGUSR2');
      });
    },
  ).catch((err: unknown) => {
    if (!stopped) throw err;
  });
  while (!fs.existsSync(pairFile)) await Promise.race([phase, delay(500)]);
  await asked;
} finally {
  stopped = true;
  await ap.stop();
}
const pair = JSON.parse(fs.readFileSync(pairFile, 'utf8')) as { wallMs: number; commands: number; copied: number[]; others: string[] };
const mb = (bytes: number) => (bytes / 1048576).toFixed(2);
console.log(
  `\nthe gap: ${Math.round(pair.wallMs)} ms, ${pair.commands} run.start read; scavenges in it ${pair.copied.length}, copied ${pair.copied.map(mb).join(', ') || '-'} MB${pair.others.length ? `; other collections ${pair.others.join(', ')}` : ''}`,
);
const read = (name: string) => JSON.parse(fs.readFileSync(path.join(snapshots, name), 'utf8')) as HeapSnapshot;
const before = idsOf(read('first.heapsnapshot'));
const found = newObjects(before, read('second.heapsnapshot'));
console.log(`new and alive a run.start: ${pair.commands ? (found.bytes / pair.commands / 1024).toFixed(1) : '-'} KB`);
for (const line of newObjectsReport(found, 30)) console.log(line);
if (process.env.FANOUT_SURVIVORS_KEEP)
  for (const name of ['first.heapsnapshot', 'second.heapsnapshot'])
    fs.copyFileSync(path.join(snapshots, name), path.join(process.env.FANOUT_SURVIVORS_KEEP, name));
// what the phase left under way (its drivers, its samplers) is not waited for
process.exit(0);
