// A protocol event's JSON (what every SSE subscriber and WebSocket of the thread is sent) is
// made once per event; one read from a log entry's text, as a run worker writes every event, is
// that text with the event's numbers put before it, not its parse serialised again (issue 67:
// a `values` event holds the thread's every message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryRunEventLog } from '../../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import type { RunRecord } from '../../../../src/domain/agent/records.ts';
import {
  eventJson,
  eventJsonBytes,
  eventJsonLength,
  framed,
  PROTOCOL_LOG_EVENT,
  PROTOCOL_RUN_KEY,
  storedOfText,
  type ProtocolEvent,
} from '../../../../src/domain/agent/protocol/events.ts';
import { longStrings } from '../../../support/liveHeap.ts';
import { threadProtocolEvents } from '../../../../src/domain/agent/protocol/threadEvents.ts';
import { SharedThreadRuns } from '../../../../src/domain/agent/protocol/sharedThreadRuns.ts';
import { CollectionRunStore } from '../../../../src/adapters/run-storage/collectionRunStore.ts';
import { JsonText } from '../../../../src/shared/jsonText.ts';

const values = { messages: Array.from({ length: 50 }, (_, i) => ({ type: 'human', content: `message ${i} "quoted" \u00e9\n`, id: `m${i}` })) };

/** A protocol run `r1` of thread `t1` whose log holds `entries` (as a run worker posts them) and has ended; what a thread's readers are given. */
async function endedProtocolRun(seqBase: number, entries: JsonText[]) {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const repository = new CollectionRunStore(store);
  const eventLog = new InMemoryRunEventLog();
  const record = { run_id: 'r1', thread_id: 't1', status: 'running', kwargs: { [PROTOCOL_RUN_KEY]: true }, metadata: {}, attempt: 1 };
  await runs.put('r1', record as unknown as RunRecord);
  await eventLog.open('r1', '', 't1');
  eventLog.publish('r1', 'metadata', { run_id: 'r1', seq_base: seqBase });
  for (const entry of entries) eventLog.publish('r1', PROTOCOL_LOG_EVENT, entry);
  await eventLog.end('r1');
  return { runs: repository, eventLog, threadRuns: new SharedThreadRuns(repository, eventLog) };
}

test("an event read from its log entry's text is sent as that text, numbered, without serialising it again", async () => {
  // as a run worker posts it: the event's JSON text
  const deps = await endedProtocolRun(7, [new JsonText(JSON.stringify({ method: 'values', params: { namespace: [], timestamp: 1, data: values } }))]);
  const got: ProtocolEvent[] = [];
  for await (const event of threadProtocolEvents(deps, 't1', { channels: new Set(['values']) }, { owner: '', present: true })) got.push(event);
  assert.equal(got.length, 1);
  const stringify = JSON.stringify;
  let serialised = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => ((serialised += 1), stringify(...args))) as typeof stringify;
  let text: string;
  try {
    text = eventJson(got[0]!);
  } finally {
    JSON.stringify = stringify;
  }
  assert.equal(serialised, 0, 'not serialised again');
  assert.deepEqual(JSON.parse(text), { type: 'event', event_id: '9', seq: 9, method: 'values', params: { namespace: [], timestamp: 1, data: values } });
  assert.equal(text, JSON.stringify(got[0]), 'the same text as serialising it would make');
});

test("an event read from its entry's text keeps no second copy of it once its text has been written out (issue 87)", async () => {
  const long = 'x'.repeat(200_000);
  const entry = new JsonText(JSON.stringify({ method: 'custom', params: { namespace: [], timestamp: 1, data: long } }));
  const event = framed(storedOfText(entry), 5);
  const before = await longStrings(200_000);
  // as a writer makes the event's bytes: the text read, flattened into one string, copied out
  const bytes = Buffer.from(eventJson(event));
  assert.deepEqual(JSON.parse(bytes.toString()), {
    type: 'event',
    event_id: '5',
    seq: 5,
    method: 'custom',
    params: { namespace: [], timestamp: 1, data: long },
  });
  assert.equal(eventJson(event), bytes.toString(), 'the same text at each call');
  assert.equal(await longStrings(200_000), before, "no flattened copy of the event's text is held beside its entry's");
  assert.ok(entry.text.length > 200_000 && event.seq === 5);
});

test('an event made here (no text to start from) is serialised, once', () => {
  const event = framed({ method: 'lifecycle', params: { namespace: [], timestamp: 2, data: { event: 'running' } } }, 3);
  const text = eventJson(event);
  assert.equal(text, JSON.stringify(event));
  assert.equal(eventJson(event), text);
});

test("an event read from its log entry's text is sent without parsing the text, unless a filter reads its params", async () => {
  const entries = ['values', 'messages'].map(
    (method, i) => new JsonText(JSON.stringify({ method, params: { namespace: i === 0 ? [] : ['child:1'], timestamp: 1, data: values } })),
  );
  const deps = await endedProtocolRun(0, entries);
  const read = async (filter: { channels: Set<string>; namespaces?: string[][] }) => {
    const got: ProtocolEvent[] = [];
    for await (const event of threadProtocolEvents(deps, 't1', filter, { owner: '', present: true })) got.push(event);
    return got;
  };

  // channels alone: the method says which events pass, and the text is what is sent
  const byChannel = await read({ channels: new Set(['values', 'messages']) });
  const texts = byChannel.map(eventJson);
  assert.deepEqual(
    byChannel.map((e) => e.method),
    ['values', 'messages'],
  );
  assert.deepEqual(
    entries.map((e) => e.isParsed),
    [false, false],
    'no text parsed',
  );
  assert.deepEqual(JSON.parse(texts[1]!), {
    type: 'event',
    event_id: '3',
    seq: 3,
    method: 'messages',
    params: { namespace: ['child:1'], timestamp: 1, data: values },
  });

  // a filter by namespace reads the params: the events' own, parsed from their text
  const byNamespace = await read({ channels: new Set(['values', 'messages']), namespaces: [['child:1']] });
  assert.deepEqual(
    byNamespace.map((e) => e.seq),
    [3],
  );
  assert.deepEqual(byNamespace[0]!.params.namespace, ['child:1']);
  assert.equal(eventJson(byNamespace[0]!), texts[1], 'the same event, the same text');
  assert.equal(JSON.stringify(byNamespace[0]), texts[1]);
});

test("a log's entries held as bytes (JsonText.pack) give the same events and the same JSON, from any `since`; its length known without reading the text", async () => {
  const entries = ['values', 'messages', 'custom'].map(
    (method, i) => new JsonText(JSON.stringify({ method, params: { namespace: [], timestamp: i, data: i === 2 ? 'é 😀' : values } })),
  );
  const deps = await endedProtocolRun(4, entries);
  const read = async (since?: number) => {
    const got: ProtocolEvent[] = [];
    for await (const event of threadProtocolEvents(deps, 't1', { channels: new Set(['values', 'messages', 'custom']), since }, { owner: '', present: true }))
      got.push(event);
    return got;
  };
  const before = (await read()).map(eventJson);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    entries.map((e) => e.isPacked),
    [true, true, true],
    'held as bytes from the turn after',
  );
  const after = await read();
  assert.deepEqual(after.map(eventJson), before);
  assert.deepEqual(
    after.map(eventJsonLength),
    before.map((text) => text.length),
  );
  assert.deepEqual((await read(6)).map(eventJson), before.slice(1), 'replayed from `since`');
  const made = framed({ method: 'lifecycle', params: { namespace: [], timestamp: 2, data: { event: 'running' } } }, 3);
  assert.equal(eventJsonLength(made), eventJson(made).length, 'an event made here: its serialised length');
});

const longEntry = (method: string) => new JsonText(JSON.stringify({ method, params: { namespace: [], timestamp: 1, data: 'y'.repeat(200_000) } }));

test("a stored event's method does not keep its entry's text once the text is held as bytes, a long method name too", async () => {
  const before = await longStrings(200_000);
  // made in a function of its own: the test's own frame keeps no temporary of it
  const entry = longEntry('input.requested');
  const stored = storedOfText(entry);
  entry.pack();
  assert.equal(stored.method, 'input.requested');
  assert.equal(await longStrings(200_000), before, 'no string of the text left on the heap');
  assert.equal((stored.params.data as string).length, 200_000, 'its params read from the bytes');
});

test("an event's JSON as bytes is its numbers and its entry's bytes: the same as eventJson's text encoded; none for an event made here", async () => {
  const entries = ['values', 'custom'].map(
    (method, i) => new JsonText(JSON.stringify({ method, params: { namespace: [], timestamp: i, data: i ? 'é 😀' : values } })),
  );
  const deps = await endedProtocolRun(4, entries);
  await new Promise((resolve) => setImmediate(resolve));
  const got: ProtocolEvent[] = [];
  for await (const event of threadProtocolEvents(deps, 't1', { channels: new Set(['values', 'custom']) }, { owner: '', present: true })) got.push(event);
  assert.equal(got.length, 2);
  for (const event of got) {
    const pieces = eventJsonBytes(event);
    assert.ok(pieces, `event ${event.seq} has its bytes`);
    assert.ok(Buffer.concat(pieces).equals(Buffer.from(eventJson(event))), `event ${event.seq}: the same bytes as its text's`);
  }
  assert.equal(eventJsonBytes(framed({ method: 'lifecycle', params: { namespace: [], timestamp: 2, data: {} } }, 3)), undefined);
});

test("a log entry's stored and framed events are small objects, their params own and enumerable as data's (issue 87: a getter made per object made each a dictionary, ~0.55 KB)", async () => {
  const { liveHeapUsed } = await import('../../../support/liveHeap.ts');
  const text = JSON.stringify({ method: 'values', params: { namespace: ['a:1'], timestamp: 1, data: { n: 1 } } });
  const entries = Array.from({ length: 20_000 }, () => new JsonText(text));
  for (const entry of entries) entry.pack();
  const before = liveHeapUsed();
  const events = entries.map((entry, i) => framed(storedOfText(entry), i + 1));
  const perEvent = (liveHeapUsed() - before) / entries.length;
  assert.ok(perEvent < 400, `${Math.round(perEvent)} bytes of heap an event (stored and framed), under 400`);
  const event = events[6]!;
  assert.deepEqual(event, { type: 'event', event_id: '7', seq: 7, method: 'values', params: { namespace: ['a:1'], timestamp: 1, data: { n: 1 } } });
  assert.deepEqual(Object.keys(event), ['type', 'event_id', 'seq', 'method', 'params']);
  assert.equal(JSON.stringify(event), eventJson(event));
  assert.deepEqual({ ...storedOfText(entries[0]!) }, JSON.parse(text), "a stored event's copy is its entry's data");
});
