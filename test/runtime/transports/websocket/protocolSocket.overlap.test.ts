// Subscriptions of one socket that overlap send each event once (spec: "each event once per
// socket however many subscriptions let it through"), pushed batches included (issue 87): a
// batch whose events the socket has all sent already writes nothing, one that holds some sends
// the others, in order. What the socket remembers for it grows with its subscriptions, not with
// the events it sends (sentOnce.ts: a socket subscribed for days kept every event's id).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { serveProtocolSocket, type ProtocolSockets } from '../../../../src/runtime/transports/websocket/protocolSocket.ts';
import type { SocketDoor } from '../../../../src/runtime/transports/websocket/socketDoor.ts';
import type { BatchSink, PushableStream } from '../../../../src/runtime/transports/pushedStream.ts';
import type { SseEvent } from '../../../../src/runtime/contract.ts';
import type { StreamScope } from '../../../../src/runtime/transports/streamScope.ts';

const event = (seq: number, channel = 'values'): SseEvent => Object.freeze({ id: String(seq), event: channel, data: JSON.stringify({ type: 'event', seq }) });
const batch = (...seqs: number[]) => Object.freeze(seqs.map((seq) => event(seq)));

const until = async (done: () => boolean) => {
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
};

/**
 * A socket whose subscriptions are pushed streams the test feeds by their sinks (each with the
 * scope `scopeOf` gives its subscribe params, if any); `subscribe` answers once the server holds
 * their sinks.
 */
async function socketOf(scopeOf: (params: { channels: string[] }) => StreamScope<SseEvent> | undefined = () => undefined) {
  const sinks: BatchSink<SseEvent>[] = [];
  const stream = (params: { channels: string[] }): PushableStream<SseEvent> => {
    const scope = scopeOf(params);
    return {
      [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
      push(sink) {
        sinks.push(sink);
        return { resume: () => undefined, close: () => undefined };
      },
      ...(scope ? { scope } : {}),
    };
  };
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const door: SocketDoor = {
    admit: async () => ({
      client: 'peer:test',
      release: () => undefined,
      call: async (operationId, body) =>
        operationId === 'streamThreadEvents' ? { status: 200, stream: stream(body as { channels: string[] }) } : { status: 404, json: '{}' },
    }),
  };
  const sockets: ProtocolSockets = serveProtocolSocket(server, door, { maxMessageBytes: 1024 * 1024, idleMs: 60_000 });
  const ws = new WebSocket(`ws://127.0.0.1:${port}/threads/t1/stream/events`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const seqs: number[] = [];
  let answers = 0;
  ws.on('message', (data) => {
    const message = JSON.parse(String(data)) as { type: string; seq?: number };
    if (message.type === 'success') answers += 1;
    else if (message.type === 'event') seqs.push(message.seq!);
  });
  let id = 0;
  return {
    sockets,
    seqs,
    subscribe: async (...channelSets: string[][]) => {
      for (const channels of channelSets) ws.send(JSON.stringify({ id: (id += 1), method: 'subscription.subscribe', params: { channels } }));
      await until(() => answers === id && sinks.length === id);
      assert.equal(sinks.length, id, 'every subscription is served');
      return sinks.slice(-channelSets.length);
    },
    close: async () => {
      ws.terminate();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

test('overlapping pushed subscriptions send each event once on their socket', async () => {
  const socket = await socketOf();
  try {
    const [first, second] = (await socket.subscribe(['values'], ['values', 'messages'])) as [BatchSink<SseEvent>, BatchSink<SseEvent>];
    first.deliver(batch(1, 2));
    second.deliver(batch(1, 2)); // all sent already
    second.deliver(batch(2, 3, 4));
    first.deliver(batch(3, 4, 5));
    await until(() => socket.seqs.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(socket.seqs, [1, 2, 3, 4, 5]);
  } finally {
    await socket.close();
  }
});

test("a socket's overlapping subscriptions remember ranges, not each event they sent", async () => {
  // two subscriptions' streams, each every event after 0 of its channels (as the thread protocol's say)
  const socket = await socketOf(({ channels }) => ({ since: 0, lets: (e) => channels.includes(e.event!) }));
  try {
    const [values, both] = (await socket.subscribe(['values'], ['values', 'messages'])) as [BatchSink<SseEvent>, BatchSink<SseEvent>];
    const EVENTS = 2_000;
    const thread = Array.from({ length: EVENTS }, (_, i) => event(i + 1, i % 2 ? 'messages' : 'values'));
    // in batches of 10, one subscription or the other first: neither sends the other's again
    for (let at = 0; at < EVENTS; at += 10) {
      const all = Object.freeze(thread.slice(at, at + 10));
      const ofValues = Object.freeze(all.filter((e) => e.event === 'values'));
      const [first, then] = at % 20 ? [values, both] : [both, values];
      first.deliver(first === values ? ofValues : all);
      then.deliver(then === values ? ofValues : all);
    }
    await until(() => socket.seqs.length >= EVENTS);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(
      [...socket.seqs].sort((x, y) => x - y),
      thread.map((e) => Number(e.id)),
      'each event once',
    );
    assert.ok(socket.sockets.remembered() <= 2, `one range per subscription: ${socket.sockets.remembered()} remembered`);
  } finally {
    await socket.close();
  }
});
