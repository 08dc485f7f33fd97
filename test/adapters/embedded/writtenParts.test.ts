// A paged record written again with a part the store wrote and kept before (a thread's values,
// marked busy at the next run's enqueue) reuses that part's JSON instead of serialising it
// again: the work of a thread's write no longer grows with the thread's history (issue 87).
// The journal's line stays exactly what JSON.stringify writes, and the depth rule still holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openJournalStore, STORE_MAX_DEPTH } from '../../../src/adapters/embedded/journalStore.ts';
import {
  KNOWN_PART_CHARS,
  knownPart,
  mayBeWrittenWhole,
  recordJson,
  recordPieces,
  writtenWhole,
  type LinePiece,
} from '../../../src/adapters/embedded/writtenParts.ts';
import { heapBytesOf, heapWithin, jsonTextBytes, TOO_DEEP } from '../../../src/adapters/embedded/heapSize.ts';
import { tempDir } from '../../support/tempDirs.ts';
import { frozenFromJson } from '../../../src/domain/freeze.ts';
import { longStrings } from '../../support/liveHeap.ts';

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

/** How many times JSON.stringify was called while `act` ran. */
function stringifyCalls(act: () => void): number {
  const stringify = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    calls += 1;
    return stringify(...args);
  }) as typeof stringify;
  try {
    act();
  } finally {
    JSON.stringify = stringify;
  }
  return calls;
}

test('a record with no part to remember is serialised in one JSON.stringify, as it was written', () => {
  // a created thread: its metadata, config and interrupts small objects (issue 86: a stringify per key and field, and their joining, before)
  const thread = {
    thread_id: 'f0c8a6b2-1d1e-4d5e-9a0b-3c4d5e6f7a8b',
    owner: 'tenant',
    created_at: '2026-11-30T16:00:00.000Z',
    metadata: { a: 'é\u0001' },
    config: {},
    values: null,
    n: 1.5,
    list: [1, null, 'x'],
  };
  let out: ReturnType<typeof recordJson> | undefined;
  assert.equal(
    stringifyCalls(() => (out = recordJson(thread))),
    1,
  );
  assert.deepEqual(out, { json: JSON.stringify(thread), fresh: [] });
});

test("a record whose parts' texts are short, though their strings are long, is serialised in one JSON.stringify", () => {
  // a run's record: its kwargs and trace ~500-700 characters of JSON, each long string plain
  // (issue 91: bounded at 6 characters a character, each went part by part, for no part to keep)
  const run = {
    run_id: '01a2344f-31c1-7000-bc6f-32a2fb7b5460',
    kwargs: { input: { messages: [{ role: 'user', content: 'é hello '.repeat(40) }] }, config: { configurable: { 'user-agent': 'node' } } },
    trace: [{ name: 'invoke_agent echo', attributes: { 'gen_ai.agent.name': 'x'.repeat(300) } }],
  };
  assert.ok(JSON.stringify(run.kwargs).length < KNOWN_PART_CHARS && JSON.stringify(run.kwargs).length * 6 > KNOWN_PART_CHARS);
  let out: ReturnType<typeof recordJson> | undefined;
  assert.equal(
    stringifyCalls(() => (out = recordJson(run))),
    1,
  );
  assert.deepEqual(out, { json: JSON.stringify(run), fresh: [] });
  // a plain part whose text reaches KNOWN_PART_CHARS is still one to keep, its keys and commas counted
  const wide = Object.fromEntries(Array.from({ length: Math.ceil(KNOWN_PART_CHARS / 8) }, (_, i) => [`k${String(i).padStart(3, '0')}`, i % 10]));
  for (const part of ['a'.repeat(KNOWN_PART_CHARS), { text: 'a'.repeat(KNOWN_PART_CHARS - 10) }, wide]) {
    const record = { id: 'r', part };
    assert.ok(JSON.stringify(part).length >= KNOWN_PART_CHARS);
    const made = recordJson(record);
    assert.equal(made.json, JSON.stringify(record));
    if (typeof part === 'object') assert.deepEqual(made.fresh, [['part', JSON.stringify(part)]]);
  }
});

test('a part that could be written as long as a remembered one is serialised on its own, and its text kept', () => {
  // under KNOWN_PART_CHARS in characters, but not certainly once escaped; and a sparse array whose holes are written as null
  const escaped = { text: '\u0001'.repeat(Math.ceil(KNOWN_PART_CHARS / 6)) };
  const holes = new Array<unknown>(KNOWN_PART_CHARS);
  for (const [key, part] of Object.entries({ escaped, holes })) {
    const record = { id: 'r', [key]: part };
    const { json, fresh } = recordJson(record);
    assert.equal(json, JSON.stringify(record));
    assert.deepEqual(fresh, [[key, JSON.stringify(part)]], key);
  }
});

test("a created thread's journal line is one stringify of the line, and its value is read back from where it sits in it", async () => {
  // issue 86: the line was joined from a head's text and the value's, then copied with its newline
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    // a cache of one byte holds nothing: every read is of the line's place on disk
    const store = await openJournalStore({ dataDir, cacheBytes: 1 });
    const threads = store.collection<Record<string, unknown>>('threads', { indexes: ['status'] });
    const id = 'thréad-ü-😀'; // characters of 2 and 4 bytes before the value: its place is in bytes
    const thread = {
      thread_id: id,
      owner: 'tenant',
      created_at: '2026-11-30T16:00:00.000Z',
      metadata: { a: 'é\u0001' },
      status: 'idle',
      config: {},
      values: null,
    };
    const stringify = JSON.stringify;
    const lines: unknown[] = [];
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      if (Array.isArray(args[0]) && Array.isArray(args[0][0]) && args[0][0].length === 4) lines.push(args[0]);
      return stringify(...args);
    }) as typeof stringify;
    try {
      assert.equal(await threads.insert(id, thread), true);
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(lines.length, 1, 'the line stringified whole, once');
    assert.equal(lastLine(dataDir), JSON.stringify([['threads', id, JSON.parse(lastLine(dataDir))[0][2], thread]]));
    assert.deepEqual(await threads.get(id), thread);
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a batch's journal line is encoded from its pieces into the bytes JSON.stringify gives, and each value is read back from its place", async () => {
  // issue 87: the line is no longer joined into one text (a record's, then the line's) before its
  // bytes are made; a remembered part, a writer's given text, an unpaged put and a delete, with
  // characters of 2, 3 and 4 bytes before and inside the values, must still land where they are read
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir, cacheBytes: 1 });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    const checkpoints = store.collection<object>('checkpoints', { indexes: ['thread_id', 'thread_ns'] });
    const plain = store.collection<object>('plain');
    await Promise.all([threads.count(), checkpoints.count(), plain.count()]);
    const id = 'thréad-€-😀';
    const values = { messages: history(20).messages.map((m, i) => ({ ...m, content: `${m.content} é€😀 ${i}` })) };
    await threads.put(id, { thread_id: id, status: 'idle', values });
    await plain.put('gone', { n: 1 });
    // the thread written again with the part the store kept (its text remembered), beside the others
    const kept = (await threads.get(id))!;
    const busy = { ...kept, status: 'busy€' };
    const checkpoint = { thread_id: id, thread_ns: `${id}:`, checkpoint_id: 'cp-😀', channels: { x: 'ü' } };
    const other = { text: 'plain ü€😀' };
    await store.write([
      { collection: 'plain', id: 'p-€', value: other },
      { collection: 'threads', id, value: busy },
      { collection: 'checkpoints', id: 'cp-😀', value: checkpoint, json: JSON.stringify(checkpoint) },
      { collection: 'plain', id: 'gone', delete: true },
    ]);
    const line = lastLine(dataDir);
    const parsed = JSON.parse(line) as [string, string, number?, object?][];
    assert.equal(
      line,
      JSON.stringify([
        ['plain', 'p-€', parsed[0]![2], other],
        ['threads', id, parsed[1]![2], busy],
        ['checkpoints', 'cp-😀', parsed[2]![2], checkpoint],
        ['plain', 'gone'],
      ]),
    );
    // a cache of one byte holds nothing: the paged values are read from their places in the line
    assert.deepEqual(await threads.get(id), busy);
    assert.deepEqual(await checkpoints.get('cp-😀'), checkpoint);
    assert.deepEqual(await plain.get('p-€'), other);
    assert.equal(await plain.get('gone'), undefined);
    await store.close();
    const again = await openJournalStore({ dataDir, cacheBytes: 1 });
    assert.deepEqual(await again.collection<Thread>('threads', { indexes: ['status'] }).get(id), busy);
    assert.deepEqual(await again.collection<object>('checkpoints', { indexes: ['thread_id', 'thread_ns'] }).get('cp-😀'), checkpoint);
    await again.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("recordPieces' pieces join into recordJson's text, a remembered part's text one piece of them", async () => {
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    await threads.put('t', { thread_id: 't', status: 'idle', values: history(10) });
    const kept = (await threads.get('t'))!;
    for (const record of [{ ...kept, status: 'busy' }, {}, { only: undefined }, { a: 1, values: kept.values, z: [null] }]) {
      const pieces: LinePiece[] = [];
      const { written } = recordPieces(record, pieces);
      assert.equal(written, true);
      const text = pieces.map((piece) => piece.toString()).join('');
      assert.equal(text, JSON.stringify(record));
      assert.equal(text, recordJson(record).json);
      if ('values' in record) {
        const piece = pieces.find((p) => p.toString() === JSON.stringify(kept.values));
        assert.ok(Buffer.isBuffer(piece), "the values are one piece, their remembered bytes (off V8's heap)");
      }
    }
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a new part to remember (a thread's values at a run's end) is walked once for its depth and its heap, its heap as the walk of its kept copy", async () => {
  // issue 91: the depth check and the heap estimate were two walks of every message of the thread, at every run's end
  const dataDir = tempDir('agentplane-written-parts-');
  const hasOwn = Object.hasOwn;
  try {
    const store = await openJournalStore({ dataDir });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    await threads.put('t', { thread_id: 't', status: 'busy', values: history(1) });
    const values = history(50);
    const keys = 1 + values.messages.length * 3;
    // each walk of a part by its keys asks whether each key is its own
    let asked = 0;
    Object.hasOwn = (object, key) => {
      asked += 1;
      return hasOwn(object, key);
    };
    try {
      await store.write([{ collection: 'threads', id: 't', set: { status: 'idle', values } }]);
    } finally {
      Object.hasOwn = hasOwn;
    }
    // one walk for the depth and the heap (and the kept copy's check of each object for a first key): two walks were 2 × keys and more
    assert.ok(asked < 2 * keys, `${asked} keys asked of a part of ${keys}`);
    const kept = (await threads.get('t'))!;
    assert.equal(kept.status, 'idle');
    assert.deepEqual(kept.values, values);
    assert.equal(knownPart(kept.values)?.heap, heapBytesOf(kept.values) + heapBytesOf(JSON.stringify(kept.values)));
    // a part holding a toJSON (a Date) is walked for its depth as JSON writes it, and for its heap apart, as before
    const dated = { messages: history(5).messages, at: new Date(0) };
    await store.write([{ collection: 'threads', id: 't', set: { values: dated } }]);
    const again = (await threads.get('t'))!;
    assert.equal(knownPart(again.values)?.heap, heapBytesOf(again.values) + heapBytesOf(JSON.stringify(again.values)));
    await store.close();
  } finally {
    Object.hasOwn = hasOwn;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a part's heap taken with its depth is heapBytesOf's, its strings narrow or wide as its text says", () => {
  const plain = history(3);
  const wide = { messages: [...history(2).messages, { type: 'ai', content: 'é€😀', id: 'w' }] };
  const lone = { messages: [...history(2).messages, { type: 'ai', content: `x${'\ud800'}`, id: 'l' }] };
  const key = { ['clé€']: 'plain', n: [1.5, 2 ** 31, null, true] };
  const escapedLook = { text: 'a \\ud800 b' }; // a backslash and "ud800" in it: not narrow by its text, still right
  for (const value of [plain, wide, lone, key, escapedLook, [], {}]) {
    const json = JSON.stringify(value);
    const text = jsonTextBytes(json);
    assert.equal(text.bytes, heapBytesOf(json));
    assert.equal(heapWithin(value, 1000, text.narrow), heapBytesOf(value), json.slice(0, 60));
  }
  assert.equal(jsonTextBytes(JSON.stringify(plain)).narrow, true);
  for (const value of [wide, lone, key, escapedLook]) assert.equal(jsonTextBytes(JSON.stringify(value)).narrow, false, JSON.stringify(value));
  // nestsDeeper's rule: the value itself one level; a toJSON left to it
  assert.equal(heapWithin([[1]], 2), heapBytesOf([[1]]));
  assert.equal(heapWithin([[[1]]], 2), TOO_DEEP);
  assert.equal(heapWithin({ at: new Date(0) }, 10), undefined);
});

test("a thread's values made from their JSON text (a run worker's, at a run's end) are written as that text, not serialised again", async () => {
  // issue 91: the run's end parsed the worker's text of the values, and the store serialised the
  // parse back into the same text. The text given here spells a character as an escape, which
  // JSON.stringify would not: the line holds the text as it was given, and reads back the same values.
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir, cacheBytes: 1 });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    await threads.count();
    const text = JSON.stringify(history(10)).replace('message 0 ', 'message\\u0020\u0030 ');
    const values = frozenFromJson(text) as Thread['values'];
    assert.equal(values.messages[0]!.content.startsWith('message 0 '), true, 'the escape is the same data');
    const chars = await stringified(() => threads.put('t', { thread_id: 't', status: 'idle', values }));
    assert.ok(chars < text.length, `the values were not serialised again (${chars} characters stringified)`);
    const line = lastLine(dataDir);
    assert.ok(line.includes(text), "the line holds the values' text as given");
    assert.deepEqual((JSON.parse(line) as [string, string, number, Thread][])[0]![3], { thread_id: 't', status: 'idle', values });
    assert.deepEqual(await threads.get('t'), { thread_id: 't', status: 'idle', values }, 'read back from the line');
    await store.close();
    const again = await openJournalStore({ dataDir, cacheBytes: 1 });
    assert.deepEqual(await again.collection<Thread>('threads', { indexes: ['status'] }).get('t'), { thread_id: 't', status: 'idle', values });
    await again.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

/** `text` made into a value as a run's end makes it (frozenFromJson), its parse's top level seen through a Proxy that counts the reads of its own fields after `counting()`. */
function countedFromJson(text: string): { value: object; parsed: object | undefined; reads: () => number; counting: () => void } {
  const parse = JSON.parse;
  let reads = 0;
  let counting = false;
  let parsed: object | undefined;
  JSON.parse = ((...args: Parameters<typeof parse>) =>
    (parsed = new Proxy(parse(...args) as object, {
      get(target, key, receiver) {
        if (counting && Object.hasOwn(target, key)) reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    }))) as typeof parse;
  try {
    return { value: frozenFromJson(text) as object, parsed, reads: () => reads, counting: () => (counting = true) };
  } finally {
    JSON.parse = parse;
  }
}

test("a thread's values made from their text are not walked again by the store's write: their depth and heap were taken as they were frozen", async () => {
  // issue 91: the store walked a run's end values for their depth and heap (heapWithin) after
  // frozenFromJson had walked them to copy them frozen; it now takes what that one walk measured
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir, cacheBytes: 64 * 1024 * 1024 });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    await threads.count();
    const text = JSON.stringify({ ...history(10), wide: 'é€', big: 2 ** 40, empty: {}, none: [] });
    const counted = countedFromJson(text);
    const values = counted.value as Thread['values'];
    // the parse itself, frozen in place: not a copy of it (a copy was walked once more)
    assert.equal(counted.value, counted.parsed, 'the values are the parse, not a copy');
    assert.ok(Object.isFrozen(values));
    counted.counting();
    await threads.put('t', { thread_id: 't', status: 'idle', values });
    assert.equal(counted.reads(), 0, "the values' fields were read by the write");
    // what is remembered of them is what the store's own walk gives
    const heap = heapWithin(values, STORE_MAX_DEPTH - 1, jsonTextBytes(text).narrow)! + jsonTextBytes(text).bytes;
    assert.deepEqual(knownPart(values), { bytes: Buffer.from(text), heap });
    assert.equal(knownPart(values)!.heap, heapBytesOf(values) + heapBytesOf(text));
    assert.deepEqual(await threads.get('t'), { thread_id: 't', status: 'idle', values: JSON.parse(text) });
    await store.close();
    const again = await openJournalStore({ dataDir });
    assert.deepEqual(await again.collection<Thread>('threads', { indexes: ['status'] }).get('t'), { thread_id: 't', status: 'idle', values: JSON.parse(text) });
    await again.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a thread's values made from their text are refused when they nest too deep, short or long, as any value is", async () => {
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    await threads.put('t', { thread_id: 't', status: 'idle', values: history(1) });
    // the values are one level of the record: they may nest STORE_MAX_DEPTH - 1 levels
    const nested = (levels: number, pad: string) => `${'{"a":'.repeat(levels - 1)}{"pad":"${pad}"}${'}'.repeat(levels - 1)}`;
    for (const pad of ['', 'x'.repeat(KNOWN_PART_CHARS)]) {
      const fits = frozenFromJson(nested(STORE_MAX_DEPTH - 1, pad)) as Thread['values'];
      await threads.update('t', (t) => ({ ...t, status: 'busy', values: fits }));
      assert.deepEqual((await threads.get('t'))!.values, JSON.parse(nested(STORE_MAX_DEPTH - 1, pad)));
      const deep = frozenFromJson(nested(STORE_MAX_DEPTH, pad)) as Thread['values'];
      await assert.rejects(
        threads.update('t', (t) => ({ ...t, status: 'idle', values: deep })),
        /deeper than/,
      );
      assert.equal((await threads.get('t'))!.status, 'busy', 'nothing of the refused write was kept');
    }
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

/** `value` seen through a Proxy that counts the reads of its own fields. */
function countedReads<T extends object>(value: T): { value: T; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(value, {
    get(target, key, receiver) {
      if (Object.hasOwn(target, key)) reads += 1;
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  return { value: proxy, reads: () => reads };
}

test("a record whose text is shorter than a part worth keeping is written in one stringify, its parts' strings not walked for a bound", async () => {
  // issue 91: each part of a plain echo run's records (a few hundred characters) was walked, key by
  // key and string by string with an escape check, to bound its text before the one stringify
  // (~160k instructions of a run's main thread); a part's text is a piece of the record's, so a
  // record written in fewer characters than KNOWN_PART_CHARS has no part to keep
  const part = () => ({ input: { messages: [{ role: 'user', content: 'é "quoted" \\ \u0001 hello' }] }, tags: ['a', 'b'], n: 1.5 });
  const kwargs = countedReads(part());
  const run = { run_id: '01a2344f-31c1-7000-bc6f-32a2fb7b5460', status: 'pending', kwargs: kwargs.value };
  const made = recordJson(run);
  assert.deepEqual(made, { json: JSON.stringify({ ...run, kwargs: part() }), fresh: [] });
  assert.equal(kwargs.reads(), 3, 'each field of the part read once, by the stringify');
  // and its journal line, one record alone in its batch
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir, cacheBytes: 1 });
    const runs = store.collection<object>('runs', { indexes: ['thread_id'] });
    await runs.count();
    const alone = countedReads(part());
    const record = { run_id: 'r1', thread_id: 't', kwargs: alone.value };
    // what the line's writer asks before and after its one stringify of the line
    assert.equal(mayBeWrittenWhole(record), true);
    assert.equal(writtenWhole(record, JSON.stringify({ ...record, kwargs: part() }).length), true);
    assert.equal(alone.reads(), 0, 'no field of the part read to bound it');
    await runs.put('r1', record);
    assert.equal(lastLine(dataDir), JSON.stringify([['runs', 'r1', JSON.parse(lastLine(dataDir))[0][2], { ...record, kwargs: part() }]]));
    assert.deepEqual(await runs.get('r1'), { ...record, kwargs: part() });
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a record longer than a part worth keeping, none of its parts that long though their strings hold escapes, is serialised in one JSON.stringify', () => {
  // issue 91: a string holding a character JSON may escape was bounded at 6 characters a character,
  // so a thread's record with a few hundred characters of messages went part by part; each part is
  // now bounded by the record's length less the least the others write
  const said = { messages: Array.from({ length: 8 }, (_, i) => ({ type: 'human', content: `say "hi" \\ ${i}\n`.repeat(3), id: `m${i}` })) };
  const other = { text: 'x'.repeat(500), n: [1, 2.5, -3, true, null], skipped: undefined };
  const record = { thread_id: 't', said, other };
  const json = JSON.stringify(record);
  assert.ok(json.length >= KNOWN_PART_CHARS && JSON.stringify(said).length < KNOWN_PART_CHARS && JSON.stringify(other).length < KNOWN_PART_CHARS);
  let out: ReturnType<typeof recordJson> | undefined;
  assert.equal(
    stringifyCalls(() => (out = recordJson(record))),
    1,
  );
  assert.deepEqual(out, { json, fresh: [] });
  // a part whose text does reach it, the rest short, is still kept, though its least alone is under it
  const quoted = { text: '"'.repeat(KNOWN_PART_CHARS / 2) };
  const withQuoted = { id: 'r', quoted, small: { a: 1 } };
  assert.deepEqual(recordJson(withQuoted), { json: JSON.stringify(withQuoted), fresh: [['quoted', JSON.stringify(quoted)]] });
});

test("a run's trace, written once with its final record, is not remembered; its kwargs and a thread's values are, and every line is JSON.stringify's (issue 87)", async () => {
  const dataDir = tempDir('agentplane-written-once-');
  try {
    const store = await openJournalStore({ dataDir });
    const runs = store.collection<Record<string, unknown>>('runs', { indexes: ['thread_id', 'status'] });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    const long = (n: number) => `span ${n} ${'é'.repeat(KNOWN_PART_CHARS)}`;
    const record = {
      run_id: 'r1',
      thread_id: 't1',
      status: 'success',
      kwargs: { input: { messages: [{ role: 'user', content: 'x'.repeat(KNOWN_PART_CHARS) }] } },
      trace: [{ name: 'invoke_agent echo', attributes: { 'input.value': long(1) } }],
    };
    await runs.put('r1', record);
    assert.equal(lastLine(dataDir), JSON.stringify([['runs', 'r1', JSON.parse(lastLine(dataDir))[0][2], record]]));
    const kept = (await runs.get('r1'))!;
    assert.deepEqual(kept, record);
    assert.equal(knownPart(kept.trace), undefined, 'the trace: not remembered');
    assert.equal(knownPart(kept.kwargs)?.bytes.toString(), JSON.stringify(record.kwargs), 'the kwargs: remembered');
    await threads.put('t1', { thread_id: 't1', status: 'idle', values: history(3) });
    const thread = (await threads.get('t1'))!;
    assert.equal(knownPart(thread.values)?.bytes.toString(), JSON.stringify(history(3)), "a thread's values: remembered");
    // the same record written again (its status): the same line as JSON.stringify, the trace serialised again
    await runs.put('r1', { ...kept, status: 'error' });
    const line = JSON.parse(lastLine(dataDir)) as [[string, string, number, unknown]];
    assert.equal(lastLine(dataDir), JSON.stringify([['runs', 'r1', line[0][2], { ...record, status: 'error' }]]));
    await store.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test("a remembered part's text is held as bytes, off V8's heap, and written again from them as JSON.stringify writes it (issue 87)", async () => {
  const dataDir = tempDir('agentplane-written-parts-');
  try {
    const store = await openJournalStore({ dataDir });
    const threads = store.collection<Thread>('threads', { indexes: ['status'] });
    const values = history(600); // ~300 KB of text, no string in it longer than ~215 characters
    const textChars = 600 * 2 * 200;
    await threads.put('t', { thread_id: 't', status: 'busy', values: history(1) });
    await threads.get('t');
    const before = await longStrings(textChars);
    // as a run's end sets them
    await store.write([{ collection: 'threads', id: 't', set: { status: 'idle', values } }]);
    const kept = (await threads.get('t'))!;
    // before the text is made here for the comparison (an async function's frame keeps its temporaries)
    assert.equal(await longStrings(textChars), before, 'no string of the text on the heap');
    assert.ok(knownPart(kept.values)?.bytes.equals(Buffer.from(JSON.stringify(values))), 'remembered, as its UTF-8 bytes');
    // written again with the same values (a run's enqueue): from the remembered bytes
    await store.write([{ collection: 'threads', id: 't', set: { status: 'busy' } }]);
    await store.close();
    const again = await openJournalStore({ dataDir });
    assert.deepEqual(await again.collection<Thread>('threads', { indexes: ['status'] }).get('t'), { thread_id: 't', status: 'busy', values });
    await again.close();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
