// The store alone under a run of thread creates, in process: `npx tsx scripts/bench/storeThreads.ts
// <root> [creates]` (root: a tree whose src/ is imported, this one or a baseline's checkout; run
// two trees in turns). Inserts `creates` threads of one owner through the tree's own
// openJournalStore and CollectionThreads, yielding a turn every 16 (so the store's own snapshots
// run as under requests), and prints the CPU µs a create for each 20,000, the collections by kind,
// the heap by space and what ArrayBuffers (packed rows) and the value cache hold. STORE_CACHE_MB:
// the value cache's budget (the server's AGENTPLANE_STORE_CACHE_MB; default the store's own).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

const root = path.resolve(process.argv[2] ?? '.');
const creates = Number(process.argv[3] ?? 100_000);
const { openJournalStore } = await import(path.join(root, 'src/adapters/embedded/journalStore.ts'));
const { CollectionThreads } = await import(path.join(root, 'src/adapters/embedded/collectionThreads.ts'));
const { newThread } = await import(path.join(root, 'src/domain/agent/records.ts'));

const collections = new Map<string, { count: number; ms: number }>();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = String((entry as { detail?: { kind?: number } }).detail?.kind ?? entry.name);
    const row = collections.get(kind) ?? { count: 0, ms: 0 };
    row.count += 1;
    row.ms += entry.duration;
    collections.set(kind, row);
  }
}).observe({ entryTypes: ['gc'] });

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'store-threads-'));
const cacheMb = process.env.STORE_CACHE_MB;
const store = await openJournalStore({ dataDir: dir, ...(cacheMb ? { cacheBytes: Number(cacheMb) * 1048576 } : {}) });
const threads = new CollectionThreads(store);
const owner = randomUUID();
const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
const began = process.cpuUsage();
const cpuNow = () => {
  const used = process.cpuUsage(began);
  return used.user + used.system;
};
const parts: string[] = [];
let last = 0;
for (let i = 0; i < creates; i += 1) {
  await threads.insert(newThread(randomUUID(), {}, owner));
  if (i % 16 === 15) await new Promise((resolve) => setImmediate(resolve));
  if (i % 20_000 === 19_999) {
    parts.push(((cpuNow() - last) / 20_000).toFixed(1));
    last = cpuNow();
  }
}
const total = cpuNow();
await new Promise((resolve) => setTimeout(resolve, 200));
const heap = v8.getHeapStatistics();
const memory = process.memoryUsage();
console.log(
  `${path.basename(root)}: ${creates} creates, ${(total / creates).toFixed(1)} µs of CPU a create (by 20,000: ${parts.join(', ')}), load ${os.loadavg()[0].toFixed(1)}`,
);
console.log(
  `  heap used ${mb(heap.used_heap_size)} MB of ${mb(heap.total_heap_size)}, RSS ${mb(memory.rss)}, ArrayBuffers ${mb(memory.arrayBuffers)}, value cache ${mb((store as unknown as { cache?: { size: number } }).cache?.size ?? 0)}`,
);
console.log(
  `  spaces (used/size MB): ${v8
    .getHeapSpaceStatistics()
    .filter((s) => s.space_size > 0)
    .map((s) => `${s.space_name.replace('_space', '')} ${mb(s.space_used_size)}/${mb(s.space_size)}`)
    .join(', ')}`,
);
console.log(
  `  collections by kind (1 young, 4 full, 8 incremental): ${[...collections].map(([kind, r]) => `${kind}: ${r.count}× ${r.ms.toFixed(0)} ms`).join(', ')}`,
);
console.log(`  data: ${(fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => `${f} ${fs.statSync(path.join(dir, f)).size}`).join(', ')}`);
await store.close();
fs.rmSync(dir, { recursive: true, force: true });
