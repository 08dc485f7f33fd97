// A stream answered over the protocol WebSocket holds a stream slot until it ends
// (releasedAtEnd.ts). A pushable stream (a thread's protocol events) stays pushable once wrapped,
// so its subscriber is handed batches instead of pulling a promise per event (issue 87: every
// WebSocket subscriber of the fan-out pulled), and the slot goes back when the writer closes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { releasedAtEnd } from '../../../src/runtime/transports/releasedAtEnd.ts';
import { isPushable, type BatchSink, type PushableStream } from '../../../src/runtime/transports/pushedStream.ts';

function pushable(events: string[]) {
  const seen = { pushed: 0, resumed: 0, closed: 0 };
  const stream: PushableStream<string> = {
    async *[Symbol.asyncIterator]() {
      yield* events;
    },
    push(sink: BatchSink<string>) {
      seen.pushed += 1;
      sink.deliver(events);
      return { resume: () => (seen.resumed += 1), close: () => (seen.closed += 1) };
    },
  };
  return { stream, seen };
}

test('a pushable stream stays pushable: batches reach the writer, and closing it gives the slot back once', () => {
  const { stream, seen } = pushable(['a', 'b']);
  let released = 0;
  const wrapped = releasedAtEnd(stream, () => (released += 1));
  assert.ok(isPushable(wrapped), 'the wrapped stream can be pushed');
  const got: string[] = [];
  const pushed = wrapped.push({ deliver: (batch) => (got.push(...batch), true), fail: () => undefined });
  assert.deepEqual(got, ['a', 'b']);
  pushed.resume();
  assert.equal(released, 0, 'held while the writer reads');
  pushed.close();
  pushed.close();
  assert.deepEqual(seen, { pushed: 1, resumed: 1, closed: 2 });
  assert.ok(released >= 1, 'the slot is given back');
});

test('a stream pulled gives its slot back at its end, pushable or not', async () => {
  for (const stream of [
    pushable(['a', 'b']).stream,
    (async function* () {
      yield* ['a', 'b'];
    })(),
  ]) {
    let released = 0;
    const got: string[] = [];
    for await (const event of releasedAtEnd(stream, () => (released += 1))) got.push(event);
    assert.deepEqual(got, ['a', 'b']);
    assert.equal(released, 1);
  }
});

test('a stream pulled and left early gives its slot back', async () => {
  let released = 0;
  for await (const event of releasedAtEnd(pushable(['a', 'b']).stream, () => (released += 1))) if (event === 'a') break;
  assert.equal(released, 1);
});
