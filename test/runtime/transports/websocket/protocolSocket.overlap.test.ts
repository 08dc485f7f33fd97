// Subscriptions of one socket that overlap send each event once (spec: "each event once per
// socket however many subscriptions let it through"), pushed batches included (issue 87): a
// batch whose events the socket has all sent already writes nothing, one that holds some sends
// the others, in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { serveProtocolSocket } from '../../../../src/runtime/transports/websocket/protocolSocket.ts';
import type { SocketDoor } from '../../../../src/runtime/transports/websocket/socketDoor.ts';
import type { BatchSink, PushableStream } from '../../../../src/runtime/transports/pushedStream.ts';
import type { SseEvent } from '../../../../src/runtime/contract.ts';

const event = (seq: number): SseEvent => Object.freeze({ id: String(seq), event: 'values', data: JSON.stringify({ type: 'event', seq }) });
const batch = (...seqs: number[]) => Object.freeze(seqs.map(event));

test('overlapping pushed subscriptions send each event once on their socket', async () => {
  const sinks: BatchSink<SseEvent>[] = [];
  const stream = (): PushableStream<SseEvent> => ({
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink) {
      sinks.push(sink);
      return { resume: () => undefined, close: () => undefined };
    },
  });
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const door: SocketDoor = {
    admit: async () => ({
      client: 'peer:test',
      release: () => undefined,
      call: async (operationId) => (operationId === 'streamThreadEvents' ? { status: 200, stream: stream() } : { status: 404, json: '{}' }),
    }),
  };
  serveProtocolSocket(server, door, { maxMessageBytes: 1024 * 1024, idleMs: 60_000 });
  const ws = new WebSocket(`ws://127.0.0.1:${port}/threads/t1/stream/events`);
  try {
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const seqs: number[] = [];
    let answers = 0;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; seq?: number };
      if (message.type === 'success') answers += 1;
      else if (message.type === 'event') seqs.push(message.seq!);
    });
    const until = async (done: () => boolean) => {
      const deadline = Date.now() + 5_000;
      while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    ws.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: { channels: ['values'] } }));
    ws.send(JSON.stringify({ id: 2, method: 'subscription.subscribe', params: { channels: ['values', 'messages'] } }));
    await until(() => answers === 2 && sinks.length === 2);
    const [first, second] = sinks as [BatchSink<SseEvent>, BatchSink<SseEvent>];
    first.deliver(batch(1, 2));
    second.deliver(batch(1, 2)); // all sent already
    second.deliver(batch(2, 3, 4));
    first.deliver(batch(3, 4, 5));
    await until(() => seqs.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(seqs, [1, 2, 3, 4, 5]);
  } finally {
    ws.terminate();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
