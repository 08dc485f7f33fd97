// A protocol WebSocket subscription sends an event whose data comes as bytes
// (SseEvent.dataBytes: its log entry holds its text as bytes) as a text message of those bytes,
// alone or in a batch with others, and keeps no frame of it (issue 87: kept for the log's life,
// each frame's Buffer was copied by the main thread's scavenges): a batch that holds it again
// reads its bytes again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { eventSocketServer } from '../../../support/eventSocketServer.ts';
import type { BatchSink, PushableStream } from '../../../../src/runtime/transports/pushedStream.ts';
import type { SseEvent } from '../../../../src/runtime/contract.ts';

test("an event's data bytes are sent as its text message, alone or in a batch, and read again for each batch", async () => {
  const reads: number[] = [];
  const bytesEvent = (seq: number, text: string): SseEvent => {
    const bytes = Buffer.from(JSON.stringify({ type: 'event', seq, text }));
    return Object.freeze({
      id: String(seq),
      data: bytes.toString(),
      dataBytes: () => (reads.push(seq), [bytes.subarray(0, 5), bytes.subarray(5)]),
    });
  };
  const a = bytesEvent(1, 'é 😀');
  const b = bytesEvent(2, 'z'.repeat(70_000));
  const plain: SseEvent = Object.freeze({ id: '3', data: { type: 'event', seq: 3, text: 'made here' } });
  const batches = [Object.freeze([a]), Object.freeze([a, b, plain]), Object.freeze([b])];
  const stream: PushableStream<SseEvent> = {
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink: BatchSink<SseEvent>) {
      setImmediate(() => {
        for (const batch of batches) sink.deliver(batch);
      });
      return { resume: () => undefined, close: () => undefined };
    },
  };
  const { server, port } = await eventSocketServer(() => stream);
  const ws = new WebSocket(`ws://127.0.0.1:${port}/threads/t1/stream/events`);
  try {
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const texts: string[] = [];
    ws.on('message', (data) => {
      const text = String(data);
      if ((JSON.parse(text) as { type: string }).type === 'event') texts.push(text);
    });
    ws.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: { channels: ['values'] } }));
    const deadline = Date.now() + 5_000;
    while (texts.length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const expected = batches.flat().map((event) => (typeof event.data === 'string' ? event.data : JSON.stringify(event.data)));
    assert.deepEqual(texts, expected);
    assert.deepEqual(reads, [1, 1, 2, 2], 'each batch read the bytes of its events: none kept a frame');
  } finally {
    ws.terminate();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
