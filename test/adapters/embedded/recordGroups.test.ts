// A grouped collection's records (issue 91: checkpoints, their writes and channel values) are
// held in memory a thread at a time: once a snapshot has them on disk, memory keeps one entry per
// thread, and a thread's records are read back from its shard's saved index (the shard file's
// trailer) when it is used.
// Every answer is the same whether a thread is held or not, after a restart, a kill -9, a lost
// or damaged index, and on a directory written before records were grouped.
import { mock, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { openJournalStore, type JournalStoreOptions } from '../../../src/adapters/embedded/journalStore.ts';
import { CHECKPOINT_KEY_SEPARATOR as SEP } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { tempDir } from '../../support/server.ts';
import { liveHeapUsed } from '../../support/liveHeap.ts';
import { toOldLayout } from '../../support/oldShardLayout.ts';
import { bufferBytes, groupedTrailerOf } from '../../../src/adapters/embedded/shardTrailer.ts';
import { StoreDamagedError } from '../../../src/shared/storeErrors.ts';

interface Write {
  thread_id: string;
  cp_key: string;
  n: number;
  body: string;
}

const KEPT = { checkpoint_writes: ['thread_id', 'cp_key'] };
const thread = (t: number) => `thread-${String(t).padStart(6, '0')}`;
const cpKey = (t: number, c: number) => [thread(t), '', `cp-${c}`].join(SEP);
const writeId = (t: number, c: number, w: number) => [cpKey(t, c), 'task', String(w)].join(SEP);
const write = (t: number, c: number, w: number, body = 'x'.repeat(100)): Write => ({ thread_id: thread(t), cp_key: cpKey(t, c), n: w, body });

async function open(dir: string, options: Partial<JournalStoreOptions> = {}) {
  const store = await openJournalStore({
    dataDir: dir,
    paged: KEPT,
    grouped: { checkpoint_writes: ['thread_id', 'cp_key'] },
    cacheBytes: 1,
    shards: 4,
    heldRecords: 0,
    ...options,
  });
  await store.loaded();
  return { store, writes: store.collection<Write>('checkpoint_writes', { indexes: ['thread_id', 'cp_key'] }) };
}

/** What a reader sees of threads 0..threads-1: each thread's records, a checkpoint's, counts, and the whole collection in order. */
async function answers(writes: Awaited<ReturnType<typeof open>>['writes'], threads: number) {
  const out: unknown[] = [await writes.count(), (await writes.list()).map((w) => `${w.cp_key}/${w.n}`)];
  for (let t = 0; t < threads; t += 1) {
    out.push(
      (await writes.list({ where: { thread_id: thread(t) } })).map((w) => w.n),
      (await writes.list({ where: { cp_key: cpKey(t, 1) }, reverse: true, limit: 2 })).map((w) => w.n),
      await writes.count({ where: { thread_id: thread(t) } }),
      (await writes.get(writeId(t, 0, 0)))?.body.length,
      (await writes.getMany([writeId(t, 2, 1), writeId(t, 9, 9)])).map((w) => w?.n),
    );
  }
  return out;
}

test("a grouped collection's records on disk cost memory per thread, not per record", async () => {
  const heapUsed = liveHeapUsed;
  const dir = tempDir('groups-memory-');
  const threads = 200;
  const perThread = 60;
  {
    const first = await open(dir, { shards: 8 });
    const ops = [];
    for (let t = 0; t < threads; t += 1)
      for (let i = 0; i < perThread; i += 1)
        ops.push({ collection: 'checkpoint_writes', id: writeId(t, Math.floor(i / 3), i % 3), value: write(t, Math.floor(i / 3), i % 3) });
    for (let i = 0; i < ops.length; i += 500) await first.store.write(ops.slice(i, i + 500));
    await first.store.close();
  }
  // the least of two opens after a first: heap that comes with an open once (code V8 compiles and
  // keeps on the heap, late under load) is not the records' (one open alone read 24 bytes a record now and then)
  let perRecord = Infinity;
  let again = await open(dir, { shards: 8 });
  for (let pass = 0; pass < 2; pass += 1) {
    await again.store.close();
    const before = heapUsed();
    again = await open(dir, { shards: 8 });
    perRecord = Math.min(perRecord, (heapUsed() - before) / (threads * perThread));
  }
  try {
    // ~4 bytes a record (~250 a thread); ~380 a record when each record kept an entry, its kept fields and index places
    assert.ok(perRecord < 20, `${Math.round(perRecord)} bytes of heap a record`);
    assert.equal(await again.writes.count(), threads * perThread);
    assert.equal((await again.writes.list({ where: { thread_id: thread(7) } })).length, perThread);
  } finally {
    await again.store.close();
  }
});

test('threads written since the last snapshot cost no entry a record once more are held than the budget: their places are set aside off the heap', async () => {
  const heapUsed = liveHeapUsed;
  const dir = tempDir('groups-aside-');
  const threads = 200;
  const perThread = 60;
  // no snapshot: every record stays in the journal
  const { store, writes } = await open(dir, { heldRecords: 600 });
  try {
    const before = heapUsed();
    for (let t = 0; t < threads; t += 1) {
      const ops = [];
      for (let i = 0; i < perThread; i += 1)
        ops.push({ collection: 'checkpoint_writes', id: writeId(t, Math.floor(i / 3), i % 3), value: write(t, Math.floor(i / 3), i % 3) });
      await store.write(ops);
    }
    const perRecord = (heapUsed() - before) / (threads * perThread);
    // ~40 bytes a record (a group and its buffer a thread, the 600 records held); ~430 while a thread written stayed held until a snapshot
    assert.ok(perRecord < 100, `${Math.round(perRecord)} bytes of heap a record`);
    assert.equal(await writes.count(), threads * perThread);
    assert.deepEqual(
      (await writes.list({ where: { cp_key: cpKey(7, 4) } })).map((w) => w.n),
      [0, 1, 2],
    );
    await store.flush();
    assert.equal((await writes.get(writeId(3, 2, 1)))?.n, 1);
  } finally {
    await store.close();
  }
});

test("a thread's group written while the server runs keeps its thread's id alone, not the id of the record it was made for", async () => {
  const heapUsed = liveHeapUsed;
  const dir = tempDir('groups-key-');
  const threads = 2_000;
  const { store, writes } = await open(dir);
  try {
    const before = heapUsed();
    // a record id much longer than its thread's (a long task name)
    for (let t = 0; t < threads; t += 1) await writes.put([cpKey(t, 0), `task-${'x'.repeat(2000)}`, '0'].join(SEP), write(t, 0, 0, ''));
    await store.flush();
    const perThread = (heapUsed() - before) / threads;
    // 100-650 bytes a thread measured so (a heap snapshot: ~180, the group and its key); ~2,200 while the group's key was a slice of the first id, which kept that id
    assert.ok(perThread < 1_200, `${Math.round(perThread)} bytes of heap a thread`);
    assert.equal(await writes.count({ where: { thread_id: thread(5) } }), 1);
  } finally {
    await store.close();
  }
});

test('every answer is the same with the threads held, let go, restarted and after a kill -9', async () => {
  const dir = tempDir('groups-answers-');
  const first = await open(dir, { heldRecords: 1_000_000 });
  for (let t = 0; t < 12; t += 1) for (let c = 0; c < 4; c += 1) for (let w = 0; w < 3; w += 1) await first.writes.put(writeId(t, c, w), write(t, c, w));
  await first.writes.delete(writeId(3, 1, 1));
  await first.writes.update(writeId(4, 2, 2), (w) => ({ ...w, n: 42 }));
  const held = await answers(first.writes, 12);
  await first.store.flush();
  assert.deepEqual(await answers(first.writes, 12), held, 'held after a snapshot');
  await first.store.close();

  // every thread let go as soon as it is on disk
  const cold = await open(dir);
  assert.deepEqual(await answers(cold.writes, 12), held, 'read back a thread at a time');
  // changes to threads not held, then a snapshot that writes some of them while others are read
  await cold.writes.put(writeId(5, 0, 0), write(5, 0, 0, 'changed'));
  await cold.writes.delete(writeId(6, 3, 2));
  for (let w = 0; w < 3; w += 1) await cold.writes.delete(writeId(7, 0, w));
  await cold.writes.put(writeId(12, 0, 0), write(12, 0, 0));
  const changed = await answers(cold.writes, 13);
  await Promise.all([cold.store.flush(), answers(cold.writes, 13)]);
  assert.deepEqual(await answers(cold.writes, 13), changed, 'after a snapshot with reads meanwhile');
  // kill -9 after more writes: a copy of the live directory, lock taken over
  await cold.writes.put(writeId(8, 1, 1), write(8, 1, 1, 'journal only'));
  await cold.writes.delete(writeId(9, 0, 0));
  const last = await answers(cold.writes, 13);
  const copy = tempDir('groups-killed-');
  // cp -a keeps the files' modification times to the nanosecond, as the saved indexes note them (fs.cpSync to the millisecond)
  execFileSync('cp', ['-a', `${dir}/.`, copy]);
  fs.rmSync(path.join(copy, 'LOCK'));
  await cold.store.close();
  for (const at of [dir, copy]) {
    const again = await open(at);
    try {
      assert.deepEqual(await answers(again.writes, 13), last, `reopened ${at === dir ? 'after a stop' : 'after a kill -9'}`);
    } finally {
      await again.store.close();
    }
  }
});

test('a lost or damaged saved index, a directory of the layout before the trailer, or one from before groups, reads the shards instead and answers the same', async () => {
  const dir = tempDir('groups-index-');
  // before groups: the same records, each in the shard of its id
  const ungrouped = await open(dir, { grouped: {} });
  for (let t = 0; t < 10; t += 1) for (let c = 0; c < 3; c += 1) for (let w = 0; w < 2; w += 1) await ungrouped.writes.put(writeId(t, c, w), write(t, c, w));
  const expected = await answers(ungrouped.writes, 10);
  await ungrouped.store.close();
  const shards = path.join(dir, 'collections', 'checkpoint_writes');
  const indexes = () => fs.readdirSync(shards).filter((f) => f.endsWith('.index'));
  const shardFiles = () => fs.readdirSync(shards).filter((f) => f.endsWith('.json'));
  assert.deepEqual(indexes(), [], 'one file a shard, its index its trailer');

  const grouped = await open(dir);
  assert.deepEqual(await answers(grouped.writes, 10), expected, 'from shards written before groups');
  await grouped.store.close();
  // grouped trailers: a line a group
  for (const f of shardFiles()) assert.ok(JSON.parse(fs.readFileSync(path.join(shards, f), 'utf8')).head.groups, `${f}: its groups' lines`);
  assert.deepEqual(await answers((await reopened(dir)).writes, 10), expected, 'from the trailers');

  // a group's line damaged: its records are found among the shard's
  const damage = (files: string[], from: string, to: string) => {
    for (const f of files) {
      const file = path.join(shards, f);
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll(from, to));
    }
  };
  damage(shardFiles(), '\n[[', '\n[{');
  assert.deepEqual(await answers((await reopened(dir)).writes, 10), expected, 'with each line of the trailers damaged');
  damage(shardFiles(), '\n[{', '\n[[');

  // the layout before the trailer: the shard's index a file of its own (side a)
  while (opened.length) await opened.pop()!.store.close();
  toOldLayout(dir);
  assert.ok(indexes().length > 0 && indexes().every((f) => /^shard-\d+\.a\.index$/.test(f)), indexes().join(' '));
  assert.deepEqual(await answers((await reopened(dir)).writes, 10), expected, 'from the index files of the layout before');
  while (opened.length) await opened.pop()!.store.close();
  damage(indexes(), '\n[[', '\n[{');
  assert.deepEqual(await answers((await reopened(dir)).writes, 10), expected, 'with each line of the index files damaged');
  while (opened.length) await opened.pop()!.store.close();
  for (const f of indexes()) fs.rmSync(path.join(shards, f));
  assert.deepEqual(await answers((await reopened(dir)).writes, 10), expected, 'with no saved index');
  // written again: trailers, the index files of the layout before gone
  const again = await reopened(dir);
  for (let t = 0; t < 10; t += 1) await again.writes.put(writeId(t, 9, 9), write(t, 9, 9));
  await again.store.flush();
  while (opened.length) await opened.pop()!.store.close();
  assert.deepEqual(indexes(), []);
  assert.equal((await answers((await reopened(dir)).writes, 10)).length, expected.length);
});

test("a snapshot makes a collection's directory once, and removes an index of the layout before groups once, not a call a shard each snapshot (issue 91)", async () => {
  const dir = tempDir('groups-calls-');
  const shards = path.join(dir, 'collections', 'checkpoint_writes');
  const putAll = async (writes: Awaited<ReturnType<typeof open>>['writes'], w: number) => {
    for (let t = 0; t < 12; t += 1) await writes.put(writeId(t, 0, w), write(t, 0, w));
  };
  const first = await open(dir);
  const mkdirs = mock.method(fs, 'mkdirSync');
  try {
    await putAll(first.writes, 0);
    await first.store.flush();
    assert.equal(fs.readdirSync(shards).filter((f) => f.endsWith('.json')).length, 4, 'every shard written');
    assert.equal(mkdirs.mock.calls.filter((call) => String(call.arguments[0]).startsWith(shards)).length, 1);
  } finally {
    mkdirs.mock.restore();
    await first.store.close();
  }
  // an index of the layout before groups left beside one shard (a directory written before groups)
  const old = path.join(shards, 'shard-2.index');
  fs.writeFileSync(old, '{"version":2}\n[]');
  const again = await open(dir);
  const removals = mock.method(fs.promises, 'rm');
  try {
    await putAll(again.writes, 1);
    await again.store.flush();
    assert.equal(fs.existsSync(old), false, 'removed as its shard is written');
    assert.deepEqual(
      removals.mock.calls.map((call) => path.basename(String(call.arguments[0]))),
      ['shard-2.index'],
    );
    await putAll(again.writes, 2);
    await again.store.flush();
    assert.equal(removals.mock.callCount(), 1, 'not looked for again');
    assert.deepEqual(
      (await again.writes.list({ where: { thread_id: thread(5) } })).map((w) => w.n),
      [0, 1, 2],
    );
  } finally {
    removals.mock.restore();
    await again.store.close();
  }
});

test('a grouped shard and its index are one file; its trailer cut at any point is never read as an index: every answer the same, or the damage named', async () => {
  const dir = tempDir('groups-trailer-');
  const shard = path.join(dir, 'collections', 'checkpoint_writes', 'shard-0.json');
  let expected: unknown[] = [];
  const first = await open(dir, { shards: 1 });
  try {
    for (let c = 0; c < 2; c += 1) {
      for (let t = 0; t < 3; t += 1) await first.writes.put(writeId(t, c, 0), write(t, c, 0, `b${c}`));
      await first.store.flush();
    }
    expected = await answers(first.writes, 3);
  } finally {
    await first.store.close();
  }
  assert.deepEqual(fs.readdirSync(path.dirname(shard)), ['shard-0.json'], 'no index file beside the shard');
  const whole = fs.readFileSync(shard);
  const head = (JSON.parse(whole.toString('utf8')) as { head: { end: number; groups: unknown[] } }).head;
  assert.equal(head.groups.length, 3, 'a line a thread');
  assert.ok(groupedTrailerOf(bufferBytes(whole), KEPT.checkpoint_writes), 'the whole file read');
  for (let cut = 0; cut < whole.length; cut += 1)
    assert.equal(groupedTrailerOf(bufferBytes(whole.subarray(0, cut)), KEPT.checkpoint_writes), null, `cut at ${cut} of ${whole.length}: a trailer read`);
  for (const cut of [head.end, head.end + 2, Math.floor((head.end + whole.length) / 2), whole.length - 1]) {
    const copy = tempDir('groups-cut-');
    fs.cpSync(dir, copy, { recursive: true });
    fs.writeFileSync(path.join(copy, path.relative(dir, shard)), whole.subarray(0, cut));
    await assert.rejects(async () => answers((await reopened(copy, { shards: 1 })).writes, 3), StoreDamagedError, `cut at ${cut}`);
  }
  assert.deepEqual(await answers((await reopened(dir, { shards: 1 })).writes, 3), expected, 'the whole file');
});

const opened: Awaited<ReturnType<typeof open>>[] = [];
async function reopened(dir: string, options: Partial<JournalStoreOptions> = {}) {
  while (opened.length) await opened.pop()!.store.close();
  const again = await open(dir, options);
  opened.push(again);
  return again;
}
test.after(async () => {
  while (opened.length) await opened.pop()!.store.close();
});
