// store.json keeps the store's seq (issue 91), so a start reads no grouped collection's index
// head (a 100,000-run history's 30,000 threads' lines) before it resolves: they are read in the
// load after it. A record's seq orders the collection, and the next write must number above
// every record ever written, whatever the restart: after a snapshot that dropped the newest
// record, after a kill -9 between a snapshot's shards and its store.json, and on a directory
// from before store.json kept it. A grouped shard that is damaged and that no saved index
// describes now fails its collection's load, not the start (as a paged shard's index unreadable
// past its head does); a directory from before the seq was kept still refuses to start on it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CHECKPOINT_KEY_SEPARATOR as SEP } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { tempDir } from '../../support/server.ts';

interface Write {
  thread_id: string;
  cp_key: string;
  n: number;
}

const thread = (t: number) => `thread-${String(t).padStart(4, '0')}`;
const cpKey = (t: number) => [thread(t), '', 'cp'].join(SEP);
const writeId = (t: number, w: number) => [cpKey(t), 'task', String(w)].join(SEP);
const record = (t: number, w: number): Write => ({ thread_id: thread(t), cp_key: cpKey(t), n: w });

async function open(dir: string) {
  const store = await openJournalStore({
    dataDir: dir,
    paged: { checkpoint_writes: ['thread_id', 'cp_key'] },
    grouped: { checkpoint_writes: ['thread_id', 'cp_key'] },
    cacheBytes: 1,
    shards: 4,
    heldRecords: 0,
    loadAfterMs: null,
  });
  return { store, writes: store.collection<Write>('checkpoint_writes', { indexes: ['thread_id', 'cp_key'] }), notes: store.collection<{ n: number }>('notes') };
}

/** The seq each record was last put with in the directory's journal files. */
function journalSeqs(dir: string): Map<string, number> {
  const seqs = new Map<string, number>();
  const journal = path.join(dir, 'journal');
  for (const file of fs.readdirSync(journal).sort())
    for (const line of fs.readFileSync(path.join(journal, file), 'utf8').split('\n'))
      if (line) for (const op of JSON.parse(line) as unknown[][]) if (op.length === 4) seqs.set(op[1] as string, op[2] as number);
  return seqs;
}

/** A copy of a live directory as kill -9 leaves it (cp -a keeps the mtimes the saved indexes note), its lock taken over. */
function killedCopy(dir: string): string {
  const copy = tempDir('seq-kept-killed-');
  execFileSync('cp', ['-a', `${dir}/.`, copy]);
  fs.rmSync(path.join(copy, 'LOCK'));
  return copy;
}

/** Writes 3 records in each of 8 threads (seqs 1..24), and the seq every one of them was given. */
async function written(writes: Awaited<ReturnType<typeof open>>['writes'], dir: string): Promise<number> {
  for (let t = 0; t < 8; t += 1) for (let w = 0; w < 3; w += 1) await writes.put(writeId(t, w), record(t, w));
  const seqs = journalSeqs(dir);
  assert.equal(seqs.size, 24);
  return Math.max(...seqs.values());
}

/** After a restart on `dir`: a new record's seq, from the journal, and where it lists. */
async function nextSeq(dir: string): Promise<number> {
  const again = await open(dir);
  try {
    await again.writes.put(writeId(99, 0), record(99, 0));
    const ids = (await again.writes.list()).map((w) => `${w.thread_id}/${w.n}`);
    assert.equal(ids.at(-1), `${thread(99)}/0`, 'the newest record lists last');
    return journalSeqs(dir).get(writeId(99, 0))!;
  } finally {
    await again.store.close();
  }
}

test('kill -9 after a snapshot whose newest record was deleted: the next write numbers above every record ever written', async () => {
  const dir = tempDir('seq-kept-');
  const first = await open(dir);
  const highest = await written(first.writes, dir);
  await first.writes.delete(writeId(7, 2)); // the newest: no shard holds its seq any more
  await first.store.flush(); // the journal retired: the snapshot alone holds the history
  const copy = killedCopy(dir);
  await first.store.close();
  for (const at of [copy, dir]) assert.ok((await nextSeq(at)) > highest, at === copy ? 'after a kill -9' : 'after a stop');
});

test("kill -9 between a snapshot's shards and its store.json: the journal it would have retired still numbers the next write", async () => {
  const dir = tempDir('seq-kept-');
  const first = await open(dir);
  for (let t = 10; t < 14; t += 1) await first.writes.put(writeId(t, 0), record(t, 0));
  await first.store.flush(); // store.json's seq: 4
  const highest = await written(first.writes, dir);
  const copy = killedCopy(dir); // store.json and the journal as they were before the next snapshot
  await first.store.flush();
  await first.store.close();
  // the snapshot's shards and indexes written, its store.json not yet, the journal not yet retired
  fs.rmSync(path.join(copy, 'collections'), { recursive: true });
  execFileSync('cp', ['-a', path.join(dir, 'collections'), path.join(copy, 'collections')]);
  assert.ok(JSON.parse(fs.readFileSync(path.join(copy, 'store.json'), 'utf8')).seq < highest);
  assert.ok((await nextSeq(copy)) > highest);
});

test('a directory from before store.json kept the seq reads the heads at the start for it, and keeps it from then on', async () => {
  const dir = tempDir('seq-kept-');
  const first = await open(dir);
  const highest = await written(first.writes, dir);
  await first.store.close();
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')) as Record<string, unknown>;
  assert.equal(meta.seq, highest);
  delete meta.seq;
  fs.writeFileSync(path.join(dir, 'store.json'), JSON.stringify(meta));
  const { value: again, opened } = await indexesOpenedWhile(() => open(dir));
  try {
    assert.ok(opened.length > 0, 'without a seq kept, the start reads the heads');
    assert.equal(JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')).seq, highest, 'kept from this start on');
  } finally {
    await again.store.close();
  }
  assert.ok((await nextSeq(dir)) > highest);
});

test("a start reads no grouped collection's index head; reads asked before the load answer as after it", async () => {
  const dir = tempDir('seq-kept-');
  const first = await open(dir);
  await written(first.writes, dir);
  await first.writes.delete(writeId(2, 1));
  await first.store.flush();
  await first.writes.put(writeId(3, 0), { ...record(3, 0), n: 30 }); // the journal after the snapshot
  const expected = [await first.writes.list(), await first.writes.list({ where: { thread_id: thread(2) } }), await first.writes.get(writeId(3, 0))];
  await first.store.close();
  const { value: again, opened } = await indexesOpenedWhile(() => open(dir));
  try {
    assert.deepEqual(opened, [], 'the start opened a grouped index');
    const asked = Promise.all([again.writes.list(), again.writes.list({ where: { thread_id: thread(2) } }), again.writes.get(writeId(3, 0))]);
    again.store.loadInBackground();
    assert.deepEqual(await asked, expected);
  } finally {
    await again.store.close();
  }
});

test('a damaged grouped shard no saved index describes fails its collection, with the damage named, not the start; before the seq was kept it refused the start', async () => {
  const dir = tempDir('seq-kept-');
  const first = await open(dir);
  await written(first.writes, dir);
  await first.store.close();
  const shards = path.join(dir, 'collections', 'checkpoint_writes');
  for (const f of fs.readdirSync(shards)) if (f.endsWith('.index')) fs.rmSync(path.join(shards, f));
  const victim = fs.readdirSync(shards).find((f) => f.endsWith('.json'))!;
  fs.writeFileSync(path.join(shards, victim), '{"records": {"cut');
  const again = await open(dir);
  try {
    await again.notes.put('n', { n: 1 });
    assert.deepEqual(await again.notes.get('n'), { n: 1 }, 'the other collections answer');
    const named = new RegExp(`checkpoint_writes/${victim.replace('.', '\\.')}`);
    await assert.rejects(again.writes.list(), named);
    await assert.rejects(again.writes.put(writeId(50, 0), record(50, 0)), named);
  } finally {
    await again.store.close();
  }
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')) as Record<string, unknown>;
  delete meta.seq;
  fs.writeFileSync(path.join(dir, 'store.json'), JSON.stringify(meta));
  await assert.rejects(open(dir), new RegExp(`checkpoint_writes/${victim.replace('.', '\\.')}`));
});

/** The grouped collection's shard files (their trailers hold the index heads) and index files of the layout before (shard-N.a.index, .b.index) opened while `opening` runs. */
async function indexesOpenedWhile<T>(opening: () => Promise<T>): Promise<{ value: T; opened: string[] }> {
  const original = fs.openSync;
  const opened: string[] = [];
  (fs as { openSync: typeof fs.openSync }).openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
    if (typeof file === 'string' && /checkpoint_writes\/shard-\d+\.(json|[ab]\.index)$/.test(file)) opened.push(path.basename(file));
    return (original as (...args: unknown[]) => number)(file, ...rest);
  }) as typeof fs.openSync;
  try {
    return { value: await opening(), opened };
  } finally {
    (fs as { openSync: typeof fs.openSync }).openSync = original;
  }
}
