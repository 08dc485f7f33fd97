// A start opens only the shard files a request may need before their collection's load (issue
// 91: "open, don't replay"): the runs' (their index heads list the pending and running runs that
// run recovery asks for during the start), not the threads' nor a grouped collection's, which
// are opened in the load after serving. A shard listed in store.json and missing still refuses
// the start; one that no saved index describes and is damaged fails its collection, not the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { tempDir } from '../../support/server.ts';

interface Run {
  run_id: string;
  thread_id: string;
  status: string;
}
interface Thread {
  thread_id: string;
  status: string;
}

async function open(dir: string) {
  const store = await openJournalStore({
    dataDir: dir,
    paged: { runs: ['run_id', 'thread_id', 'status'], threads: ['thread_id', 'status'] },
    few: { runs: { status: ['pending', 'running'] } },
    cacheBytes: 1,
    shards: 4,
    loadAfterMs: null,
  });
  return { store, runs: store.collection<Run>('runs', { indexes: ['status'] }), threads: store.collection<Thread>('threads', { indexes: ['status'] }) };
}

/** 12 threads with a run each, every third run pending, snapshotted, then one more run and thread in the journal. */
async function history(dir: string) {
  const first = await open(dir);
  for (let i = 0; i < 12; i += 1) {
    await first.threads.put(`t${i}`, { thread_id: `t${i}`, status: 'idle' });
    await first.runs.put(`r${i}`, { run_id: `r${i}`, thread_id: `t${i}`, status: i % 3 === 0 ? 'pending' : 'success' });
  }
  await first.store.flush();
  await first.threads.put('t12', { thread_id: 't12', status: 'busy' });
  await first.runs.put('r12', { run_id: 'r12', thread_id: 't12', status: 'running' });
  const expected = {
    runs: await first.runs.list(),
    threads: await first.threads.list(),
    pending: await first.runs.list({ where: { status: 'pending' } }),
  };
  await first.store.close();
  return expected;
}

/** The files under collections/<name>/ opened while `opening` runs, by collection. */
async function shardsOpenedWhile<T>(opening: () => Promise<T>): Promise<{ value: T; opened: Record<string, string[]> }> {
  const original = fs.openSync;
  const opened: Record<string, string[]> = {};
  (fs as { openSync: typeof fs.openSync }).openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    const m = typeof file === 'string' ? /collections[/\\]([^/\\]+)[/\\](shard-[^/\\]+)$/.exec(file) : null;
    if (m) (opened[m[1]!] ??= []).push(m[2]!);
    return (original as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof fs.openSync;
  try {
    return { value: await opening(), opened };
  } finally {
    (fs as { openSync: typeof fs.openSync }).openSync = original;
  }
}

test("a start opens the runs' shards for their few values, not the threads'; pending runs asked before the load are the pending ones only (a running one was listed too), and reads answer as after it", async () => {
  const dir = tempDir('open-shards-');
  const expected = await history(dir);
  const { value: again, opened } = await shardsOpenedWhile(() => open(dir));
  try {
    assert.equal(opened.threads, undefined, `the start opened the threads' shards: ${opened.threads}`);
    assert.ok((opened.runs ?? []).length > 0, "the runs' index heads are read at the start");
    // run recovery's question, answered from the heads and the journal before any load
    assert.deepEqual(await again.runs.list({ where: { status: 'pending' } }), expected.pending);
    const asked = Promise.all([again.runs.list(), again.threads.list(), again.threads.get('t3')]);
    again.store.loadInBackground();
    assert.deepEqual(await asked, [expected.runs, expected.threads, { thread_id: 't3', status: 'idle' }]);
  } finally {
    await again.store.close();
  }
});

test('a threads shard listed in store.json and missing refuses the start, naming it', async () => {
  const dir = tempDir('open-shards-');
  await history(dir);
  const shards = path.join(dir, 'collections', 'threads');
  const gone = fs.readdirSync(shards).find((f) => f.endsWith('.json'))!;
  fs.rmSync(path.join(shards, gone));
  await assert.rejects(open(dir), new RegExp(`collections/threads/${gone.replace('.', '\\.')} is listed in store\\.json but missing`));
  assert.equal(fs.existsSync(path.join(dir, 'LOCK')), false, 'a refused start left its lock behind');
});

test('a damaged threads shard no saved index describes fails the threads, with the damage named, not the start', async () => {
  const dir = tempDir('open-shards-');
  const expected = await history(dir);
  const shards = path.join(dir, 'collections', 'threads');
  for (const f of fs.readdirSync(shards)) if (f.endsWith('.index')) fs.rmSync(path.join(shards, f));
  const victim = fs.readdirSync(shards).find((f) => f.endsWith('.json'))!;
  fs.writeFileSync(path.join(shards, victim), '{"records": {"cut');
  const again = await open(dir);
  try {
    assert.deepEqual(await again.runs.list(), expected.runs, 'the other collections answer');
    await assert.rejects(again.threads.list(), new RegExp(`threads/${victim.replace('.', '\\.')}`));
  } finally {
    await again.store.close();
  }
});
