// An event whose data comes as bytes (SseEvent.dataBytes: a protocol event's log entry holds its
// text as bytes) is framed of them, the same frame formatSseEvent makes of its `data`, in a batch
// or alone, pushed or pulled; and its frame is not kept with the event (issue 87: kept for the
// log's life, each frame's Buffer was copied by the main thread's scavenges): a batch that
// holds it again reads its bytes again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SseEvent } from '../../../src/runtime/contract.ts';
import { formatSseEvent, writeSse } from '../../../src/runtime/transports/sse.ts';
import type { BatchSink, PushableStream } from '../../../src/runtime/transports/pushedStream.ts';

/** A frozen event whose data is `text`, its bytes given in two pieces; `reads` counts the reads of its bytes. */
function bytesEvent(id: number, text: string, reads: Map<string, number>): SseEvent {
  const bytes = Buffer.from(text);
  return Object.freeze({
    event: 'values',
    id: String(id),
    data: text,
    dataBytes: () => {
      reads.set(String(id), (reads.get(String(id)) ?? 0) + 1);
      return [bytes.subarray(0, 3), bytes.subarray(3)];
    },
  });
}

async function serve(stream: () => AsyncIterable<SseEvent>) {
  const server = http.createServer((_req, res) => void writeSse(res, 200, stream()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    read: async () => (await fetch(`http://127.0.0.1:${port}/`)).text(),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

test("an event's data bytes are framed as its data is, alone or in a pushed batch, and read again for each batch (no frame kept)", async () => {
  const reads = new Map<string, number>();
  const a = bytesEvent(1, '{"type":"event","text":"é 😀 \\n quoted \\"x\\""}', reads);
  const b = bytesEvent(2, `{"long":"${'y'.repeat(5000)}"}`, reads);
  // an event without bytes in the same batch: its frame made of its data, as before
  const plain: SseEvent = Object.freeze({ event: 'lifecycle', id: '3', data: { event: 'running' } });
  const batches = [Object.freeze([a]), Object.freeze([a, b, plain]), Object.freeze([b])];
  const pushed = (): PushableStream<SseEvent> => ({
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink: BatchSink<SseEvent>) {
      setImmediate(() => {
        for (const batch of batches) sink.deliver(batch);
        sink.deliver(Object.freeze([]));
        // the stream's end: the response ends after what it was given
        setImmediate(() => sink.fail(new Error('done')));
      });
      return { resume: () => undefined, close: () => undefined };
    },
  });
  const server = await serve(pushed);
  try {
    const body = await server.read();
    assert.equal(body, batches.flat().map(formatSseEvent).join(''));
    assert.deepEqual(Object.fromEntries(reads), { '1': 2, '2': 2 }, 'each batch read the bytes of its events: none kept a frame');
  } finally {
    await server.close();
  }
});

test('pulled one at a time, an event with data bytes is framed of them; bytes that hold a line break are framed of its data, in lines', async () => {
  const reads = new Map<string, number>();
  const a = bytesEvent(1, '{"a":"é"}', reads);
  // not JSON text: a line break splits the data into lines, as formatSseEvent does
  const broken = bytesEvent(2, 'line one\nline two', reads);
  async function* events() {
    yield a;
    yield broken;
    yield a;
  }
  const server = await serve(events);
  try {
    assert.equal(await server.read(), [a, broken, a].map(formatSseEvent).join(''));
    assert.equal(formatSseEvent(broken), 'event: values\nid: 2\ndata: line one\ndata: line two\n\n');
    assert.equal(reads.get('1'), 2, 'read again at each write: no frame kept');
  } finally {
    await server.close();
  }
});
