// `npx tsx scripts/bench/profileMemory.ts [threads] [out dir]`: where the memory of a server
// holding 100,000 threads (the bench's memory phase) goes. agentplane runs under
// `node --heap-prof` (V8's sampling heap profiler, one sample every 32 kB allocated, which
// reports what is still held when the profile is written); the threads are created through
// the API as the bench does, the server settles and is stopped, and what its main thread held
// is drawn as a flame graph by where it was allocated (docs/profiles/memory-100k-threads.svg
// by default). Printed beside it: the RSS, V8's heap spaces and the largest holders by
// function. The .heapprofile files stay in .bench/.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, startAgentplane } from './agentplane.ts';
import { heapAsProfile, mainThreadFile, renderFlameGraph, selfByFunction, type HeapNode } from './flame.ts';
import { load } from './load.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

const threads = Number(process.argv[2] ?? 100_000);
const out = path.resolve(ROOT, process.argv[3] ?? 'docs/profiles');
const work = fs.mkdtempSync(path.join(ROOT, '.bench', 'profile-memory-'));
// the profiles stay in .bench/; the server's data directory goes however the bench ends
removeAtExit(path.join(work, 'data'));
const heapDir = path.join(work, 'heap');

const ap = await startAgentplane({
  dataDir: path.join(work, 'data'),
  workDir: work,
  nodeArgs: ['--heap-prof', `--heap-prof-dir=${heapDir}`, '--heap-prof-interval=32768'],
});
const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;
try {
  const created = await load({
    url: `${ap.url}/threads`,
    method: 'POST',
    headers: { ...ap.headers, 'content-type': 'application/json' },
    body: '{}',
    connections: 16,
    amount: threads,
  });
  if (created.non2xx || created.errors) throw new Error(`creating threads: ${created.non2xx} non-2xx, ${created.errors} errors`);
  await new Promise((resolve) => setTimeout(resolve, 15_000));
  console.log(`RSS with ${threads} threads, settled: ${mb(ap.rss())} MB`);
} finally {
  await ap.stop();
}

const files = fs.readdirSync(heapDir).filter((f) => f.endsWith('.heapprofile'));
const main = mainThreadFile(files, heapDir);
const profile = heapAsProfile((JSON.parse(fs.readFileSync(path.join(heapDir, main), 'utf8')) as { head: HeapNode }).head);
fs.mkdirSync(out, { recursive: true });
const svg = path.join(out, 'memory-100k-threads.svg');
const title = `agentplane holding ${threads.toLocaleString('en')} threads (embedded store): the main thread's JS heap by where it was allocated`;
fs.writeFileSync(svg, renderFlameGraph(profile, title, { per: 1048576, name: 'MB', total: 'held (sampled)' }));
console.log(`wrote ${svg}`);

const held = selfByFunction(profile);
const all = held.reduce((sum, [, bytes]) => sum + bytes, 0);
console.log(`main thread's JS heap held (sampled): ${mb(all)} MB; most held by allocating function:`);
for (const [key, bytes] of held.slice(0, 20)) console.log(`  ${String(mb(bytes)).padStart(7)} MB  ${key}`);
