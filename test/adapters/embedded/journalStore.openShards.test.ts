// A start opens only the shard files a request may need before their collection's load (issue
// 91: "open, don't replay"): the runs' (their index heads list the pending and running runs that
// run recovery asks for during the start), not the threads' nor a grouped collection's, which
// are opened in the load after serving. A shard listed in store.json and missing still refuses
// the start; one that no saved index describes and is damaged fails its collection, not the start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore, type StoreIo } from '../../../src/adapters/embedded/journalStore.ts';
import { shardOf, writeFileAtomic } from '../../../src/adapters/embedded/dataDir.ts';
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

async function open(dir: string, shards = 4, io?: StoreIo) {
  const store = await openJournalStore({
    dataDir: dir,
    paged: { runs: ['run_id', 'thread_id', 'status'], threads: ['thread_id', 'status'] },
    few: { runs: { status: ['pending', 'running'] } },
    cacheBytes: 1,
    shards,
    loadAfterMs: null,
    ...(io ? { io } : {}),
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

/** 24 finished runs, snapshotted: store.json lists no runs shard as holding a pending or running run. */
async function finished(dir: string) {
  const first = await open(dir, 16);
  for (let i = 0; i < 24; i += 1) await first.runs.put(`r${i}`, { run_id: `r${i}`, thread_id: `t${i}`, status: 'success' });
  await first.threads.put('t0', { thread_id: 't0', status: 'idle' });
  return first;
}

const runsShard = (dir: string, id: string) => path.join(dir, 'collections', 'runs', `shard-${shardOf(id, 16)}.json`);
const fewListed = (dir: string) =>
  (JSON.parse(fs.readFileSync(path.join(dir, 'store.json'), 'utf8')) as { few?: { runs?: { shards: number[] } } }).few?.runs?.shards;

test("a start opens only the runs' shards store.json lists as holding a pending or running run (issue 91: 64 index heads read cold were ~300 ms of a restart)", async () => {
  const dir = tempDir('open-shards-');
  const first = await finished(dir);
  await first.runs.put('late', { run_id: 'late', thread_id: 't0', status: 'pending' });
  await first.store.close();
  assert.deepEqual(fewListed(dir), [shardOf('late', 16)]);
  const { value: again, opened } = await shardsOpenedWhile(() => open(dir, 16));
  try {
    const n = shardOf('late', 16);
    assert.deepEqual(opened.runs ?? [], [`shard-${n}.json`], 'the start opened runs shards store.json does not list (its index is its trailer)');
    assert.deepEqual(await again.runs.list({ where: { status: 'pending' } }), [{ run_id: 'late', thread_id: 't0', status: 'pending' }]);
    assert.equal((await again.runs.list()).length, 25, 'the load opens the others');
  } finally {
    await again.store.close();
  }
});

test('after a snapshot cut short (kill -9 before its store.json), a run made pending in a shard store.json does not list is found before the load, from the journal kept', async () => {
  const dir = tempDir('open-shards-');
  await (await finished(dir)).store.close();
  assert.deepEqual(fewListed(dir), []);
  // a snapshot that writes the runs' shards, then fails on the threads' and so never writes store.json nor retires the journal
  const io: StoreIo = {
    writeSync: (fd, buffer, offset, length) => fs.writeSync(fd, buffer, offset, length),
    fsyncSync: (fd) => fs.fsyncSync(fd),
    ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
    writeFile: (file, data, sync) =>
      file.includes(`${path.sep}threads${path.sep}`) ? Promise.reject(Object.assign(new Error('EIO'), { code: 'EIO' })) : writeFileAtomic(file, data, sync),
  };
  const cut = await open(dir, 16, io);
  await cut.runs.put('r5', { run_id: 'r5', thread_id: 't5', status: 'pending' });
  await cut.threads.put('t5', { thread_id: 't5', status: 'busy' });
  await cut.store.close(); // its snapshot fails on the threads: as a kill -9 between the runs' shards and store.json
  assert.match(fs.readFileSync(runsShard(dir, 'r5'), 'utf8'), /"r5":\[\d+,\{[^\n]*"pending"/, "the runs' shard was written again");
  assert.deepEqual(fewListed(dir), [], 'store.json was not');
  const { value: again, opened } = await shardsOpenedWhile(() => open(dir, 16));
  try {
    assert.equal(opened.runs, undefined, `the start opened runs shards: ${opened.runs}`);
    assert.deepEqual(await again.runs.list({ where: { status: 'pending' } }), [{ run_id: 'r5', thread_id: 't5', status: 'pending' }]);
    again.store.loadInBackground();
    assert.deepEqual(await again.runs.get('r5'), { run_id: 'r5', thread_id: 't5', status: 'pending' });
    assert.deepEqual(await again.threads.get('t5'), { thread_id: 't5', status: 'busy' });
    await again.store.flush();
    assert.deepEqual(fewListed(dir), [shardOf('r5', 16)], 'the next snapshot lists it');
  } finally {
    await again.store.close();
  }
});
