// The cache of paged values (issue 91) holds what AGENTPLANE_STORE_CACHE_MB says in heap, not in
// JSON: a value parsed or copied from N bytes of JSON weighs ~1.5-1.8 N of heap when it is
// mostly small objects (a checkpoint of LangChain messages), and each held value ~100 bytes more.
// Alone in its file: a heap measured after other tests in the same process moves by more.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/tempDirs.ts';

/** A checkpoint-like record: a thread's messages, each a few small objects and a short text. */
function record(i: number): object {
  const messages = Array.from({ length: 8 }, (_, m) => ({
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', m % 2 ? 'AIMessage' : 'HumanMessage'],
    kwargs: {
      content: `record ${i} message ${m}`,
      additional_kwargs: {},
      response_metadata: { tokens: i + m, score: i / 7 },
      id: `m-${i}-${m}`,
      tool_calls: [],
    },
  }));
  // parsed, as a request's body is: its strings flat and its own
  return JSON.parse(JSON.stringify({ thread_id: `thread-${i % 50}`, messages })) as object;
}

/**
 * Heap grown by writing `count` records into a store whose cache is `cacheBytes`, with the store
 * still open; with the bytes of Buffers, where the store holds the texts it remembers of its
 * values' large parts (writtenParts.ts: off V8's heap, counted in the budget as their text was).
 */
async function heldNow(gc: () => void): Promise<number> {
  gc();
  // a Buffer's memory is freed after the collection that let it go, off the main thread
  await new Promise((resolve) => setTimeout(resolve, 100));
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

async function heapAfterWrites(cacheBytes: number, count: number, gc: () => void): Promise<number> {
  const dataDir = tempDir('agentplane-cache-heap-');
  const store = await openJournalStore({ dataDir, paged: { cps: ['thread_id'] }, cacheBytes });
  try {
    const cps = store.collection<object>('cps');
    const before = await heldNow(gc);
    for (let i = 0; i < count; i += 1) await cps.put(`c${i}`, record(i));
    return (await heldNow(gc)) - before;
  } finally {
    await store.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

test('the cache of paged values holds no more heap than its budget (issue 91)', async () => {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const budget = 4 * 1024 * 1024;
  const count = 4_000; // ~2.6 KB of JSON each, ~10 MB in all: the cache is full
  const bookkeeping = await heapAfterWrites(0, count, gc);
  const withCache = await heapAfterWrites(budget, count, gc);
  const cached = withCache - bookkeeping;
  // ~3.4 MB; ~7.7 MB while the budget counted each value's JSON
  assert.ok(cached <= budget, `the cache holds ${(cached / 2 ** 20).toFixed(1)} MB of heap for a budget of 4 MB`);
  assert.ok(cached >= budget * 0.6, `the cache is used: ${(cached / 2 ** 20).toFixed(1)} MB`);
});
