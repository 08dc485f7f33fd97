// A WebSocket subscriber that stops reading must not make the server queue its thread's
// events for it: the socket's subscription reads the operation's stream on only as the socket
// takes what was sent, so nothing reads the log ahead of it. Served here on a plain node:http
// server whose door answers the event operation with many large events, as a busy thread's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { eventSocketServer } from '../../../support/eventSocketServer.ts';

const EVENTS = 8_000;
const PAYLOAD = 'x'.repeat(10_000); // 80 MB in all

test('a WebSocket subscriber that stops reading stops its stream being read, and gets every event once it reads', async () => {
  let produced = 0;
  async function* events() {
    for (let i = 0; i < EVENTS; i += 1) {
      produced += 1;
      yield { id: `e${i}`, data: JSON.stringify({ type: 'event', seq: i, params: { data: PAYLOAD } }) };
    }
  }
  const { server, port } = await eventSocketServer(events);
  const base = `http://127.0.0.1:${port}`;
  const ws = new WebSocket(`${base.replace('http', 'ws')}/threads/t1/stream/events`);
  try {
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const seqs: number[] = [];
    let subscribed = false;
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { type: string; seq?: number };
      if (message.type === 'success') subscribed = true;
      else if (message.type === 'event') seqs.push(message.seq!);
    });
    ws.send(JSON.stringify({ id: 1, method: 'subscription.subscribe', params: { channels: ['values'] } }));
    while (!subscribed) await new Promise((resolve) => setTimeout(resolve, 10));
    ws.pause(); // the client reads nothing for now
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.ok(produced < EVENTS / 4, `${produced} of ${EVENTS} events read for a subscriber that reads nothing`);

    ws.resume();
    const deadline = Date.now() + 20_000;
    while (seqs.length < EVENTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(
      seqs,
      Array.from({ length: EVENTS }, (_, i) => i),
    );
  } finally {
    ws.terminate();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
