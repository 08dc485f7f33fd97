// The dashboard's recovery from a broken thread (issue 84), in process: how long a failing poll
// waits before it asks again (ui/src/backoff.ts), and a Threads list row read from whatever one
// thread holds (ui/src/threadRow.ts). The browser test is dashboard.brokenThread.e2e.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FIRST_RETRY_MS, MAX_RETRY_MS, retryDelay } from '../../../ui/src/backoff.ts';
import { messagesIn, threadRow } from '../../../ui/src/threadRow.ts';

test('a failing poll waits twice as long after each failure in a row, up to a minute', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 100, 5000].map(retryDelay), [5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000, 60_000]);
  assert.equal(retryDelay(1), FIRST_RETRY_MS);
  assert.equal(retryDelay(Number.MAX_SAFE_INTEGER), MAX_RETRY_MS);
  // a count below one is the first failure's wait, never less
  assert.equal(retryDelay(0), FIRST_RETRY_MS);
});

const record = {
  thread_id: 't-1',
  status: 'idle',
  metadata: { assistant_id: 'a-1', owner: { team: 'x' } },
  updated_at: '2026-01-01T00:00:00Z',
  values: {
    messages: [
      { type: 'system', content: 'be brief' },
      { type: 'human', content: [{ type: 'text', text: 'what is ' }, '6 * 7?'] },
      { type: 'ai', content: '42' },
    ],
  },
};

test('a thread read whole: its first message from the user, its messages counted, its metadata as text', () => {
  assert.deepEqual(threadRow(record), {
    id: 't-1',
    status: 'idle',
    assistantId: 'a-1',
    firstMessage: 'what is 6 * 7?',
    messageCount: 3,
    metadata: 'assistant_id=a-1, owner={"team":"x"}',
    updatedAt: '2026-01-01T00:00:00Z',
    problem: undefined,
  });
  // a new thread has no values yet: nothing odd about it
  assert.deepEqual(threadRow({ thread_id: 't-2', status: 'idle', values: null, metadata: null }), {
    id: 't-2',
    status: 'idle',
    assistantId: undefined,
    firstMessage: '',
    messageCount: 0,
    metadata: '',
    updatedAt: undefined,
    problem: undefined,
  });
  // a message stored as the client sent it (a role, not a type) still says what the thread is about
  assert.equal(threadRow({ thread_id: 't-3', values: { messages: [{ role: 'user', content: 'hi' }] } }).firstMessage, 'hi');
  assert.equal(threadRow({ thread_id: 't-4', values: { messages: [{ type: 'human', content: 'x'.repeat(200) }] } }).firstMessage, `${'x'.repeat(79)}…`);
});

test('a thread holding something odd keeps the row, with what can be read of it, and says what cannot', () => {
  const cases: [unknown, Partial<ReturnType<typeof threadRow>>][] = [
    [
      { ...record, values: 'text' },
      { id: 't-1', status: 'idle', messageCount: undefined, problem: 'its values are not an object' },
    ],
    [{ ...record, values: [1, 2] }, { problem: 'its values are not an object' }],
    [
      { ...record, values: { messages: 'not a list' } },
      { messageCount: undefined, firstMessage: '', problem: 'its messages are not a list' },
    ],
    [{ ...record, values: { messages: { 0: 'a' } } }, { problem: 'its messages are not a list' }],
    [
      { ...record, values: { messages: [null, 7, { type: 'human', content: { nested: [1] } }] } },
      { firstMessage: '{"nested":[1]}', messageCount: undefined, problem: 'some of its messages are not objects' },
    ],
    [
      { ...record, metadata: ['a'] },
      { assistantId: undefined, metadata: '', problem: 'its metadata is not an object' },
    ],
    [
      { ...record, thread_id: 42, status: { busy: true } },
      { id: '', status: 'unknown', problem: 'it has no thread id' },
    ],
    [
      { ...record, updated_at: 12 },
      { updatedAt: undefined, problem: undefined },
    ],
    [null, { id: '', status: 'unknown', problem: 'the record is not an object' }],
    ['t-1', { id: '', problem: 'the record is not an object' }],
    [[record], { id: '', problem: 'the record is not an object' }],
  ];
  for (const [thread, expected] of cases) {
    const row = threadRow(thread);
    for (const [field, value] of Object.entries(expected)) assert.deepEqual(row[field as keyof typeof row], value, `${field} of ${JSON.stringify(thread)}`);
  }
  // every oddity is named, not only the first
  assert.equal(threadRow({ values: { messages: 1 }, metadata: 1 }).problem, 'it has no thread id; its metadata is not an object; its messages are not a list');
});

test("a thread's messages: those that are objects, and whether any was not", () => {
  assert.deepEqual(messagesIn(undefined), { messages: [] });
  assert.deepEqual(messagesIn({ other: 1 }), { messages: [] });
  assert.deepEqual(messagesIn({ messages: [{ type: 'ai', content: 'a' }, 'b'] }), {
    messages: [{ type: 'ai', content: 'a' }],
    problem: 'some of its messages are not objects',
  });
});
