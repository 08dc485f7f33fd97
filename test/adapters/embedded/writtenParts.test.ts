// A paged record written again with a part the store wrote and kept before (a thread's values,
// marked busy at the next run's enqueue) reuses that part's JSON instead of serialising it
// again: the work of a thread's write no longer grows with the thread's history (issue 87).
// The journal's line stays exactly what JSON.stringify writes, and the depth rule still holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore, STORE_MAX_DEPTH } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/tempDirs.ts';

interface Thread {
  thread_id: string;
  status: string;
  values: { messages: { type: string; content: string; id: string }[] };
  extra?: unknown;
}

const history = (runs: number) => ({
  messages: Array.from({ length: runs * 2 }, (_, i) => ({ type: i % 2 ? 'ai' : 'human', content: `message ${i} ${'x'.repeat(200)}`, id: `m${i}` })),
});

/** The characters JSON.stringify produced while `act` ran. */
async function stringified(act: () => Promise<unknown>): Promise<number> {
  const stringify = JSON.stringify;
  let chars = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    const out = stringify(...args) as string | undefined;
    chars += out?.length ?? 0;
    return out;
  }) as typeof stringify;
  try {
    await act();
  } finally {
    JSON.stringify = stringify;
  }
  return chars;
}

function lastLine(dataDir: string): string {
  const dir = path.join(dataDir, 'journal');
  const file = fs.readdirSync(dir).sort().at(-1)!;
  return fs.readFileSync(path.join(dir, file), 'utf8').trimEnd().split('\n').at(-1)!;
}

test("a thread's status change serialises as much whatever the length of its history", async () => {
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    const cost: Record<number, number> = {};
    for (const runs of [3, 300]) {
      const id = `t${runs}`;
      await threads.put(id, { thread_id: id, status: 'idle', values: history(runs) });
      cost[runs] = await stringified(() => threads.update(id, (t) => ({ ...t, status: 'busy' })));
      // the line written is the one JSON.stringify gives of it
      const written = (await threads.get(id))!;
      assert.equal(written.status, 'busy');
      assert.equal(lastLine(dataDir), JSON.stringify([['threads', id, JSON.parse(lastLine(dataDir))[0][2], written]]));
    }
    assert.ok(cost[300]! < 2_000, `marking a thread of 300 runs busy serialised ${cost[300]} characters (3 runs: ${cost[3]})`);
    await store.close();
    // and is read back as written
    const again = await openJournalStore({ dataDir });
    const read = await again.collection<Thread>('threads', { indexes: ['status'] }).get('t300');
    assert.deepEqual(read, { thread_id: 't300', status: 'busy', values: history(300) });
    await again.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a record holding a part written before is still refused when a new part nests too deep', async () => {
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    await threads.put('t', { thread_id: 't', status: 'idle', values: history(10) });
    let deep: unknown = 1;
    for (let i = 0; i < STORE_MAX_DEPTH; i += 1) deep = [deep];
    await assert.rejects(
      threads.update('t', (t) => ({ ...t, status: 'busy', extra: deep })),
      /deeper than/,
    );
    assert.equal((await threads.get('t'))?.status, 'idle');
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
