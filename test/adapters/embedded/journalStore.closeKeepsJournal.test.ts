// A clean stop takes its final snapshot only when the shard files it would rewrite hold few bytes
// (closeRewriteBytes) or no more than the journal (issue 91: 200 runs on a 100,000-run history
// dirtied nearly every shard of four collections, and the stop rewrote ~4 GB in 17 s, past a
// supervisor's 10 s). Otherwise it leaves the journal, whole and fsynced, and the next start
// replays it: every collection, paged, grouped and whole, reads as it was written, and the
// journal stays until a snapshot that pays retires it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore, type JournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import type { FileData } from '../../../src/adapters/embedded/dataDir.ts';
import { CHECKPOINT_KEY_SEPARATOR as SEP } from '../../../src/domain/agent/checkpoints/checkpointer.ts';
import { tempDir } from '../../support/server.ts';

const THREADS = 40;
const thread = (t: number) => `thread-${String(t).padStart(4, '0')}`;
const runId = (t: number, r: number) => `run-${String(t).padStart(4, '0')}-${r}`;
const cpId = (t: number, c: number) => [thread(t), '', `cp-${c}`].join(SEP);
// a value big enough that the shards outweigh the journal of a few writes
const filler = 'x'.repeat(2_000);

const open = (dataDir: string, closeRewriteBytes: number) =>
  openJournalStore({ dataDir, shards: 8, closeRewriteBytes, compactBytes: 1 << 30, loadAfterMs: null, cacheBytes: 1 });

function collections(store: JournalStore) {
  return {
    runs: store.collection<{ run_id: string; thread_id: string; status: string; n: number; filler: string }>('runs', { indexes: ['thread_id', 'status'] }),
    checkpoints: store.collection<{ thread_id: string; thread_ns: string; checkpoint_id: string; n: number; filler: string }>('checkpoints', {
      indexes: ['thread_id'],
    }),
    notes: store.collection<{ n: number }>('notes'),
  };
}

/** Every shard file's bytes and mtime, by path. */
function shardFiles(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const root = path.join(dir, 'collections');
  for (const name of fs.readdirSync(root))
    for (const file of fs.readdirSync(path.join(root, name))) {
      const at = path.join(root, name, file);
      const stat = fs.statSync(at);
      found.set(at, `${stat.size}/${stat.mtimeMs}`);
    }
  return found;
}

const journalBytes = (dir: string) => fs.readdirSync(path.join(dir, 'journal')).reduce((sum, f) => sum + fs.statSync(path.join(dir, 'journal', f)).size, 0);

async function history(dir: string, closeRewriteBytes: number): Promise<void> {
  const store = await open(dir, closeRewriteBytes);
  const { runs, checkpoints, notes } = collections(store);
  for (let t = 0; t < THREADS; t += 1) {
    for (let r = 0; r < 3; r += 1) await runs.put(runId(t, r), { run_id: runId(t, r), thread_id: thread(t), status: 'success', n: r, filler });
    for (let c = 0; c < 3; c += 1) await checkpoints.put(cpId(t, c), { thread_id: thread(t), thread_ns: '', checkpoint_id: `cp-${c}`, n: c, filler });
    await notes.put(`note-${t}`, { n: t });
  }
  await store.close(); // no shard files yet: the snapshot pays, whatever the bound
}

/** A few small writes spread over every shard: a run's status, a checkpoint, a note, a delete, and a new pending run. */
async function fewWrites(dir: string, closeRewriteBytes: number): Promise<void> {
  const store = await open(dir, closeRewriteBytes);
  const { runs, checkpoints, notes } = collections(store);
  for (let t = 0; t < THREADS; t += 4) {
    await runs.put(runId(t, 0), { run_id: runId(t, 0), thread_id: thread(t), status: 'error', n: 100, filler: '' });
    await checkpoints.put(cpId(t, 9), { thread_id: thread(t), thread_ns: '', checkpoint_id: 'cp-9', n: 9, filler: '' });
    await notes.put(`note-${t}`, { n: t + 1000 });
  }
  await runs.delete(runId(1, 1));
  await checkpoints.delete(cpId(1, 1));
  await notes.delete('note-1');
  await runs.put(runId(2, 7), { run_id: runId(2, 7), thread_id: thread(2), status: 'pending', n: 7, filler: '' });
  await store.close();
}

async function assertReadsBack(dir: string): Promise<void> {
  const store = await open(dir, 1 << 30);
  try {
    const { runs, checkpoints, notes } = collections(store);
    assert.deepEqual(
      (await runs.list({ where: { status: 'pending' } })).map((r) => r.run_id),
      [runId(2, 7)],
      'the pending run written before the stop is found',
    );
    for (let t = 0; t < THREADS; t += 1) {
      const changed = t % 4 === 0;
      assert.equal((await runs.get(runId(t, 0)))?.status, changed ? 'error' : 'success', `run ${runId(t, 0)}`);
      assert.equal((await notes.get(`note-${t}`))?.n, t === 1 ? undefined : changed ? t + 1000 : t, `note-${t}`);
      const cps = (await checkpoints.list({ where: { thread_id: thread(t) } })).map((c) => c.checkpoint_id).sort();
      const expected = t === 1 ? ['cp-0', 'cp-2'] : changed ? ['cp-0', 'cp-1', 'cp-2', 'cp-9'] : ['cp-0', 'cp-1', 'cp-2'];
      assert.deepEqual(cps, expected, `checkpoints of ${thread(t)}`);
    }
    assert.equal(await runs.get(runId(1, 1)), undefined, 'a deleted run stays deleted');
    assert.equal((await runs.get(runId(5, 2)))?.filler, filler, 'an untouched run reads whole');
  } finally {
    await store.close();
  }
}

test('a stop whose snapshot would rewrite far more than its journal holds leaves the journal; the next start reads every collection back', async () => {
  const dir = tempDir('close-keeps-journal-');
  await history(dir, 1);
  const before = shardFiles(dir);
  assert.ok(before.size > 8, 'the history is in shard files');
  await fewWrites(dir, 1);
  assert.deepEqual(shardFiles(dir), before, 'no shard file was rewritten by the stop');
  const kept = journalBytes(dir);
  assert.ok(kept > 0, 'the journal is left for the next start');
  await assertReadsBack(dir);
  // that start, with a bound the snapshot is under, retired the journal at its stop
  assert.equal(journalBytes(dir), 0, 'a stop whose snapshot pays retires the journal');
  await assertReadsBack(dir);
});

test('a stop whose snapshot rewrites few bytes takes it, as before', async () => {
  const dir = tempDir('close-snapshots-');
  await history(dir, 1 << 30);
  await fewWrites(dir, 1 << 30);
  assert.equal(journalBytes(dir), 0, 'the stop snapshotted and retired the journal');
  await assertReadsBack(dir);
});

test('a start after a stop that left the journal, killed before its own stop, loses nothing', async () => {
  const dir = tempDir('close-keeps-journal-killed-');
  await history(dir, 1);
  await fewWrites(dir, 1);
  // a second server writes more and is killed (no close): its journal is a second file beside the first
  const store = await open(dir, 1);
  const { runs } = collections(store);
  await runs.put(runId(3, 8), { run_id: runId(3, 8), thread_id: thread(3), status: 'success', n: 8, filler: '' });
  (store as unknown as { releaseLock: () => void }).releaseLock(); // as kill -9 leaves it: no stop, the lock taken over
  const again = await open(dir, 1);
  try {
    assert.equal((await collections(again).runs.get(runId(3, 8)))?.n, 8, 'the killed server’s write is there');
    assert.equal((await collections(again).runs.get(runId(0, 0)))?.status, 'error', 'the stopped server’s write is there');
    const journal = path.join(dir, 'journal');
    const empty = fs.readdirSync(journal).filter((f) => fs.statSync(path.join(journal, f)).size === 0);
    assert.deepEqual(empty, [fs.readdirSync(journal).sort().at(-1)], 'the journal files left empty by earlier starts are gone, the one being written stays');
  } finally {
    await again.close();
  }
});

test('a paged value in the journal that scans but does not parse fails its collection’s load, not the start', async () => {
  const dir = tempDir('close-keeps-journal-damaged-');
  await history(dir, 1);
  // a line of the shape a start scans, its run's value not JSON inside its braces
  const journal = path.join(dir, 'journal');
  const newest = fs.readdirSync(journal).sort().at(-1)!;
  fs.appendFileSync(path.join(journal, newest), '[["runs","run-bad",99999,{"status":tru}]]\n[["notes","note-x",100000,{"n":7}]]\n');
  const store = await open(dir, 1);
  try {
    const { runs, notes } = collections(store);
    assert.equal((await notes.get('note-x'))?.n, 7, 'the collections read whole answer');
    await assert.rejects(runs.get(runId(0, 0)), /does not read as JSON/, 'the runs answer with the error naming it');
  } finally {
    await store.close();
  }
});

test('a stop that leaves its journal lists each journal file’s ops beside it; the next start reads that list, not the file', async () => {
  const dir = tempDir('close-keeps-journal-listed-');
  await history(dir, 1);
  await fewWrites(dir, 1);
  const journal = path.join(dir, 'journal');
  const logs = fs.readdirSync(journal).filter((f) => f.endsWith('.log') && fs.statSync(path.join(journal, f)).size > 0);
  assert.equal(logs.length, 1);
  const listed = path.join(journal, logs[0]!.replace('.log', '.ops'));
  const index = JSON.parse(fs.readFileSync(listed, 'utf8')) as { lines: unknown[][][] };
  // the list without its last line (the new pending run): a start that reads the list does not see it
  const last = index.lines.pop()!;
  assert.deepEqual(last[0]!.slice(0, 2), ['runs', runId(2, 7)]);
  fs.writeFileSync(listed, JSON.stringify(index));
  const store = await open(dir, 1 << 30);
  try {
    assert.equal(await collections(store).runs.get(runId(2, 7)), undefined, 'the start replayed the list');
    assert.equal((await collections(store).runs.get(runId(0, 0)))?.status, 'error', 'and the writes it lists');
  } finally {
    await store.close();
  }
  assert.equal(fs.existsSync(listed), false, 'a snapshot retires the list with its journal file');
});

test('a stop during a background snapshot stops it before its next shard; the journal it kept is replayed and nothing is lost', async () => {
  const dir = tempDir('close-stops-snapshot-');
  await history(dir, 1);
  const shards = shardFiles(dir).size;
  let writes = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const nodeFs = await import('node:fs/promises');
  const io = {
    writeSync: (fd: number, buffer: Buffer, offset: number, length: number) => fs.writeSync(fd, buffer, offset, length),
    fsyncSync: (fd: number) => fs.fsyncSync(fd),
    ftruncateSync: (fd: number, length: number) => fs.ftruncateSync(fd, length),
    // the second shard file's write waits until the store's close has begun
    async writeFile(file: string, data: FileData, _sync: boolean) {
      writes += 1;
      if (writes === 2) {
        held();
        await gate;
      }
      const chunks: Buffer[] = [];
      if (typeof data === 'string' || Buffer.isBuffer(data)) chunks.push(Buffer.from(data));
      else for await (const chunk of data) chunks.push(...(Buffer.isBuffer(chunk) ? [chunk] : chunk));
      await nodeFs.writeFile(`${file}.tmp`, Buffer.concat(chunks), { mode: 0o600 });
      await nodeFs.rename(`${file}.tmp`, file);
    },
  };
  const store = await openJournalStore({ dataDir: dir, shards: 8, closeRewriteBytes: 1, compactBytes: 1 << 30, loadAfterMs: null, cacheBytes: 1, io });
  const { runs, checkpoints, notes } = collections(store);
  for (let t = 0; t < THREADS; t += 1) {
    await runs.put(runId(t, 0), { run_id: runId(t, 0), thread_id: thread(t), status: 'error', n: 100, filler: '' });
    await checkpoints.put(cpId(t, 9), { thread_id: thread(t), thread_ns: '', checkpoint_id: 'cp-9', n: 9, filler: '' });
    await notes.put(`note-${t}`, { n: t + 1000 });
  }
  (store as unknown as { snapshotSoon: () => void }).snapshotSoon(); // as a journal past its bound starts one
  await holding;
  const closed = store.close();
  release();
  await closed;
  assert.ok(writes < shards, `the snapshot stopped at the close: ${writes} of ${shards} shard files written`);
  assert.ok(journalBytes(dir) > 0, 'its journal is kept');
  const again = await open(dir, 1 << 30);
  try {
    const read = collections(again);
    for (let t = 0; t < THREADS; t += 1) {
      assert.equal((await read.runs.get(runId(t, 0)))?.status, 'error', `run ${runId(t, 0)}`);
      assert.equal((await read.notes.get(`note-${t}`))?.n, t + 1000, `note-${t}`);
      const cps = (await read.checkpoints.list({ where: { thread_id: thread(t) } })).map((c) => c.checkpoint_id).sort();
      assert.deepEqual(cps, ['cp-0', 'cp-1', 'cp-2', 'cp-9'], `checkpoints of ${thread(t)}`);
      assert.equal((await read.runs.get(runId(t, 1)))?.filler, filler, 'an untouched run reads whole');
    }
  } finally {
    await again.close();
  }
});

/** What `ask` answers, and the bytes fs.readSync read meanwhile. */
async function bytesReadWhile<T>(ask: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const original = fs.readSync;
  let bytes = 0;
  (fs as { readSync: unknown }).readSync = (...args: unknown[]) => {
    const n = (original as (...a: unknown[]) => number)(...args);
    bytes += n;
    return n;
  };
  try {
    return { value: await ask(), bytes };
  } finally {
    (fs as { readSync: unknown }).readSync = original;
  }
}

test('run recovery’s look-ups before the load read a kept run’s status from the first bytes of its value, once (issue 91: 200 runs of ~14 KB were decoded and parsed whole, twice a restart)', async () => {
  const dir = tempDir('close-keeps-journal-few-');
  await history(dir, 1);
  const big = 'y'.repeat(20_000);
  const first = await open(dir, 1);
  const status = (t: number) => (t === 3 ? 'running' : t === 5 ? 'pending' : 'success');
  for (let t = 0; t < 10; t += 1)
    await collections(first).runs.put(runId(t, 0), { run_id: runId(t, 0), thread_id: thread(t), status: status(t), n: 0, filler: big });
  // a value whose status lies past the bytes read first: it is parsed whole, as before
  await collections(first).runs.put(runId(0, 1), { filler: big, run_id: runId(0, 1), thread_id: thread(0), status: 'pending', n: 1 });
  await first.close();
  assert.ok(journalBytes(dir) > 11 * 20_000, 'the stop left the journal');
  const store = await open(dir, 1 << 30);
  try {
    const { runs } = collections(store);
    const running = await bytesReadWhile(() => runs.list({ where: { status: 'running' } }));
    const pending = await bytesReadWhile(() => runs.list({ where: { status: 'pending' } }));
    assert.deepEqual(
      running.value.map((r) => [r.run_id, r.filler.length]),
      [[runId(3, 0), big.length]],
    );
    assert.deepEqual(
      pending.value.map((r) => [r.run_id, r.status]),
      [
        [runId(0, 1), 'pending'],
        [runId(5, 0), 'pending'],
      ],
    );
    // ten values' first KB, the one parsed whole and the running one read: not eleven values whole
    assert.ok(running.bytes <= 10 * 1024 + 2 * 21_000, `${running.bytes} bytes read for the running runs`);
    // the statuses are known now: only the two pending values are read
    assert.ok(pending.bytes <= 2 * 21_000, `${pending.bytes} bytes read for the pending runs`);
    store.loadInBackground();
    assert.deepEqual(
      (await runs.list({ where: { status: 'pending' } })).map((r) => r.run_id),
      [runId(0, 1), runId(5, 0)],
    );
  } finally {
    await store.close();
  }
});
