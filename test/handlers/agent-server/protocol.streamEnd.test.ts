// A thread stream's subscriber that goes lets go of the thread's events at once, not when the
// thread's next event comes (the feed keeps reading for as long as it has a reader: issue 67).
// The handler's stream is asked to end while it waits for an event on a quiet thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { protocolHandlers } from '../../../src/handlers/agent-server/protocol.ts';
import type { ProtocolService } from '../../../src/domain/agent/service.ts';
import type { ProtocolEvent } from '../../../src/domain/agent/protocol/events.ts';

test("a thread stream asked to end while it waits for an event ends its reading of the thread's events at once", async () => {
  let readers = 0;
  // a quiet thread's events, as the feed reads them: a pending read ends when the reader goes
  const quiet: AsyncIterable<ProtocolEvent> = {
    [Symbol.asyncIterator]() {
      readers += 1;
      let end: (() => void) | undefined;
      return {
        next: () => new Promise<IteratorResult<ProtocolEvent>>((resolve) => (end = () => resolve({ done: true, value: undefined }))),
        return: async () => {
          readers -= 1;
          end?.();
          return { done: true, value: undefined };
        },
      };
    },
  };
  const service = { events: async () => ({ ok: true, value: quiet }) } as unknown as ProtocolService;
  const handlers = protocolHandlers(() => service);
  const reply = (await handlers.streamThreadEvents(
    { path: { thread_id: 't1' }, headers: {}, body: { channels: ['values'] } } as never,
    {
      signal: new AbortController().signal,
    } as never,
  )) as { stream: AsyncIterable<unknown> };
  const stream = reply.stream[Symbol.asyncIterator]();
  const waiting = stream.next();
  assert.equal(readers, 1);
  const ended = await Promise.race([stream.return!().then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 500))]);
  assert.equal(ended, true, 'the stream ended');
  assert.equal(readers, 0, "the thread's events are no longer read");
  assert.deepEqual(await waiting, { done: true, value: undefined });
});
