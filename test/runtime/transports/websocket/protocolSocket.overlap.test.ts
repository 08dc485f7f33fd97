// Subscriptions of one socket that overlap each send every event their stream lets through, as
// upstream's session sends an event once per matching subscription (langgraph-api 1.5.1
// protocol/session/index.mjs `pushEvent`, and a subscription's replay of the buffer): the SDK
// hands an event only to the subscriptions it holds when the event arrives and drops repeats per
// subscription by `event_id`, so a subscription made later sees the earlier events only if the
// server sends them again (test/differential/overlappingSubscriptions.ts compares it with upstream).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { eventSocketServer } from '../../../support/eventSocketServer.ts';
import type { BatchSink, PushableStream } from '../../../../src/runtime/transports/pushedStream.ts';
import type { SseEvent } from '../../../../src/runtime/contract.ts';

const event = (seq: number, channel = 'values'): SseEvent => Object.freeze({ id: String(seq), event: channel, data: JSON.stringify({ type: 'event', seq }) });
const batch = (...seqs: number[]) => Object.freeze(seqs.map((seq) => event(seq)));

const until = async (done: () => boolean) => {
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** A socket whose subscriptions are pushed streams the test feeds by their sinks; `subscribe` answers once the server holds their sinks. */
async function socketOf() {
  const sinks: BatchSink<SseEvent>[] = [];
  const stream = (): PushableStream<SseEvent> => ({
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink) {
      sinks.push(sink);
      return { resume: () => undefined, close: () => undefined };
    },
  });
  const { server, port } = await eventSocketServer(stream);
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

test('overlapping pushed subscriptions each send every event they are given, a later one the earlier events again', async () => {
  const socket = await socketOf();
  try {
    const [first] = (await socket.subscribe(['values'])) as [BatchSink<SseEvent>];
    first.deliver(batch(1, 2));
    await until(() => socket.seqs.length >= 2);
    // the second subscription replays the thread from its start: 1 and 2 again, for it
    const [second] = (await socket.subscribe(['values', 'messages'])) as [BatchSink<SseEvent>];
    second.deliver(batch(1, 2, 3));
    first.deliver(batch(3));
    await until(() => socket.seqs.length >= 6);
    assert.deepEqual(socket.seqs, [1, 2, 1, 2, 3, 3]);
  } finally {
    await socket.close();
  }
});
