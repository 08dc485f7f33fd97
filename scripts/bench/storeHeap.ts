// `node --expose-gc --import tsx scripts/bench/storeHeap.ts <data dir> [snapshot dir]` (issue 91):
// the heap the embedded store alone holds for a data directory's history once every record is
// loaded (openJournalStore, its collections opened with their indexes as a server's repositories
// open them, then loaded()), against the heap before it opened: in all, a run
// (the runs collection's count) and a record, with each collection's count; with a snapshot dir,
// heap snapshots before and after for scripts/bench/heapSnapshotDiff.ts.
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { CollectionCheckpoints } from '../../src/adapters/embedded/collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from '../../src/adapters/embedded/collectionPlainCheckpoints.ts';
import { CollectionThreads } from '../../src/adapters/embedded/collectionThreads.ts';
import { CollectionRunStore } from '../../src/adapters/run-storage/collectionRunStore.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: storeHeap.ts <data dir> [snapshot dir]');
const snapshots = process.argv[3];
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
if (snapshots) fs.mkdirSync(snapshots, { recursive: true });
const before = heap();
if (snapshots) v8.writeHeapSnapshot(path.join(snapshots, 'before.heapsnapshot'));
const started = performance.now();
const store = await openJournalStore({ dataDir: dir, cacheBytes: 0 });
const opened = performance.now() - started;
// the collections opened as a server opens them, with their indexes
const repositories = [new CollectionRunStore(store), new CollectionThreads(store), new CollectionCheckpoints(store), new CollectionPlainCheckpoints(store)];
await store.loaded();
const loadedMs = performance.now() - started;
const grown = heap() - before;
if (snapshots) v8.writeHeapSnapshot(path.join(snapshots, 'after.heapsnapshot'));
const counts: Record<string, number> = {};
for (const name of store.collectionNames()) counts[name] = await store.collection(name).count();
const records = Object.values(counts).reduce((a, b) => a + b, 0);
const runs = counts.runs ?? 0;
console.log(JSON.stringify(counts));
console.log(
  `opened in ${opened.toFixed(0)} ms, every record in ${loadedMs.toFixed(0)} ms; heap +${(grown / 2 ** 20).toFixed(1)} MB: ` +
    `${runs ? (grown / runs / 1024).toFixed(2) : '-'} KB a run, ${(grown / records).toFixed(0)} B a record (${records} records)`,
);
console.log(`${repositories.length} repositories`);
await store.close();
