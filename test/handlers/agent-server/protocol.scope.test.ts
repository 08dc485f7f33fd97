// A thread's protocol stream says which events it sends (streamScope.ts): those after its
// `since` that its filter lets through. The protocol WebSocket remembers by it what it has sent
// instead of each event's id (issue 87), so the scope must be the subscription's own filter —
// asked of the events the stream itself made — and hold for a range of another subscription
// with the same filter, whatever its `since`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { protocolHandlers } from '../../../src/handlers/agent-server/protocol.ts';
import type { ProtocolService } from '../../../src/domain/agent/service.ts';
import type { ProtocolEvent } from '../../../src/domain/agent/protocol/events.ts';
import type { SseEvent } from '../../../src/runtime/contract.ts';
import { isPushable } from '../../../src/runtime/transports/pushedStream.ts';
import { scopeOf } from '../../../src/runtime/transports/streamScope.ts';

const protocolEvent = (seq: number, method: string, namespace: string[] = []): ProtocolEvent =>
  ({ type: 'event', event_id: String(seq), seq, method, params: { namespace, timestamp: 0, data: {} } }) as ProtocolEvent;

test("a thread's protocol stream says its subscription's scope: its since and its filter", async () => {
  const thread = [protocolEvent(4, 'values'), protocolEvent(5, 'messages'), protocolEvent(6, 'values', ['child']), protocolEvent(7, 'updates')];
  const feed = {
    [Symbol.asyncIterator]: () => assert.fail('pushed, not pulled'),
    push: (sink: { deliver(events: readonly ProtocolEvent[]): boolean }) => {
      sink.deliver(thread);
      return { resume: () => undefined, close: () => undefined };
    },
  };
  const service = { events: async () => ({ ok: true, value: feed }) } as unknown as ProtocolService;
  const handlers = protocolHandlers(() => service);
  const reply = (await handlers.streamThreadEvents(
    { path: { thread_id: 't1' }, headers: {}, body: { channels: ['values', 'messages'], namespaces: [[]], depth: 0, since: 3 } } as never,
    { signal: new AbortController().signal } as never,
  )) as { stream: AsyncIterable<SseEvent> };
  const scope = scopeOf(reply.stream);
  assert.ok(scope && isPushable(reply.stream));
  assert.equal(scope.since, 3);
  const sent: SseEvent[] = [];
  reply.stream.push({ deliver: (batch) => (sent.push(...batch), true), fail: () => undefined });
  assert.deepEqual(
    sent.map((e) => [e.id, scope.lets(e)]),
    [
      ['4', true],
      ['5', true],
      ['6', false], // a namespace deeper than `depth`
      ['7', false], // a channel it did not name
    ],
  );
  // an SSE event it did not make is none of its own: it lets it through to no one
  assert.equal(scope.lets({ id: '4', event: 'values', data: '{}' }), false);
  // a later Last-Event-ID sets the stream's since; the filter stays the channels', namespaces' and depth's
  const resumed = (await handlers.streamThreadEvents(
    { path: { thread_id: 't1' }, headers: { 'last-event-id': '5' }, body: { channels: ['values', 'messages'], namespaces: [[]], depth: 0, since: 3 } } as never,
    { signal: new AbortController().signal } as never,
  )) as { stream: AsyncIterable<SseEvent> };
  const later = scopeOf(resumed.stream)!;
  assert.equal(later.since, 5);
  assert.equal(later.lets(sent[0]!), true, 'an event before its since is still one its filter lets through');
});
