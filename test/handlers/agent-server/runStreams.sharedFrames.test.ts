// The readers joined to one run (its stream and every join: a page and its tabs, a team's
// dashboards) are sent one SSE event per entry of the run's log, the same frozen object for
// all of them, so the SSE writer frames and encodes each entry once, not once per reader
// (issue 67). The handlers over a run service whose log entries are shared objects, as the
// event log's are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { streamHandlers } from '../../../src/handlers/agent-server/runStreams.ts';
import type { RunEvent, RunService } from '../../../src/domain/agent/service.ts';
import type { SseEvent } from '../../../src/runtime/contract.ts';
import type { RequestContext } from '../../../src/runtime/context.ts';

const log: RunEvent[] = [
  { id: '0', event: 'metadata', data: { run_id: 'r1' } },
  { id: '1', event: 'values', data: { messages: [] } },
  { id: '2', event: 'custom', data: 'text' },
  { id: '3', event: 'end', data: null },
];

const runs = {
  get: async () => ({ ok: true, value: {} }),
  events: async function* () {
    yield* log;
  },
} as unknown as RunService;

async function join(modes?: string[]): Promise<SseEvent[]> {
  const handlers = streamHandlers(() => runs);
  const ctx = { signal: new AbortController().signal } as RequestContext;
  const reply = await handlers.joinRunStream({ path: { thread_id: 't1', run_id: 'r1' }, query: { stream_mode: modes }, headers: {} } as never, ctx);
  const got: SseEvent[] = [];
  for await (const event of (reply as { stream: AsyncIterable<SseEvent> }).stream) got.push(event);
  return got;
}

test("every reader joined to a run is sent the same frozen event for each of its log's entries", async () => {
  const [a, b, values] = await Promise.all([join(), join(), join(['values'])]);
  assert.deepEqual(
    a.map((e) => e.event),
    ['metadata', 'values', 'custom'],
  );
  a.forEach((event, i) => {
    assert.ok(Object.isFrozen(event), 'frozen: the SSE writer keeps its bytes with it');
    assert.equal(b[i], event, `entry ${event.id}: one event for both readers`);
  });
  assert.deepEqual(values, [a[0], a[1]], 'a reader with its own stream modes gets the same objects for what it reads');
  // text data goes out quoted, as JSON
  assert.equal(String((a[2]!.data as { text: string }).text), '"text"');
});
