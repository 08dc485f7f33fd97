// A protocol event's JSON (what every SSE subscriber and WebSocket of the thread is sent) is
// made once per event; one read from a log entry's text, as a run worker writes every event, is
// that text with the event's numbers put before it, not its parse serialised again (issue 67:
// a `values` event holds the thread's every message).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RunBroker } from '../../../../src/domain/agent/broker.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import type { RunRecord } from '../../../../src/domain/agent/records.ts';
import { eventJson, framed, PROTOCOL_LOG_EVENT, PROTOCOL_RUN_KEY, type ProtocolEvent } from '../../../../src/domain/agent/protocol/events.ts';
import { threadProtocolEvents } from '../../../../src/domain/agent/protocol/threadEvents.ts';
import { SharedThreadRuns } from '../../../../src/domain/agent/protocol/sharedThreadRuns.ts';
import { CollectionRuns } from '../../../../src/adapters/embedded/collectionRuns.ts';
import { JsonText } from '../../../../src/shared/jsonText.ts';

const values = { messages: Array.from({ length: 50 }, (_, i) => ({ type: 'human', content: `message ${i} "quoted" \u00e9\n`, id: `m${i}` })) };

test("an event read from its log entry's text is sent as that text, numbered, without serialising it again", async () => {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  const repository = new CollectionRuns(store);
  const broker = new RunBroker();
  const record = { run_id: 'r1', thread_id: 't1', status: 'running', kwargs: { [PROTOCOL_RUN_KEY]: true }, metadata: {}, attempt: 1 };
  await runs.put('r1', record as unknown as RunRecord);
  await broker.open('r1', '', 't1');
  broker.publish('r1', 'metadata', { run_id: 'r1', seq_base: 7 });
  // as a run worker posts it: the event's JSON text
  broker.publish('r1', PROTOCOL_LOG_EVENT, new JsonText(JSON.stringify({ method: 'values', params: { namespace: [], timestamp: 1, data: values } })));
  await broker.end('r1');
  const got: ProtocolEvent[] = [];
  const deps = { runs: repository, broker, threadRuns: new SharedThreadRuns(repository, broker) };
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

test('an event made here (no text to start from) is serialised, once', () => {
  const event = framed({ method: 'lifecycle', params: { namespace: [], timestamp: 2, data: { event: 'running' } } }, 3);
  const text = eventJson(event);
  assert.equal(text, JSON.stringify(event));
  assert.equal(eventJson(event), text);
});
