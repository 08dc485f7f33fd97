// The events a WebSocket subscription has ready in one turn of the event loop (a run's step
// publishes several at once, to every subscriber of its thread) go out in one write to the
// connection, not one system call per event (issue 67: ws writes each message at once; with
// 1,000 subscribers those writes were 4 s of the server's 56). Served on a plain node:http
// server whose door answers the event operation with a burst of events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import WebSocket from 'ws';
import { eventSocketServer } from '../../../support/eventSocketServer.ts';

const BURST = 20;

test("a subscription's events ready in one turn are written to the connection at once", async () => {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  async function* events() {
    await released;
    for (let i = 0; i < BURST; i += 1) yield { id: `e${i}`, data: JSON.stringify({ type: 'event', seq: i, params: { data: i } }) };
    await new Promise(() => undefined); // then quiet
  }
  const { server, port } = await eventSocketServer(events);
  // the server's writes on its side of the connection (the client's side has the port as its remote one)
  let writes = 0;
  const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (this: net.Socket, ...args: unknown[]) => void>;
  const original = { _write: proto._write, _writev: proto._writev };
  for (const name of ['_write', '_writev'] as const)
    proto[name] = function (this: net.Socket, ...args: unknown[]) {
      if (this.localPort === port) writes += 1;
      return original[name].apply(this, args);
    };
  const ws = new WebSocket(`ws://127.0.0.1:${port}/threads/t1/stream/events`);
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
    while (!subscribed) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    writes = 0;
    release();
    const deadline = Date.now() + 5_000;
    while (seqs.length < BURST && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(
      seqs,
      Array.from({ length: BURST }, (_, i) => i),
    );
    assert.ok(writes <= 2, `${writes} writes for ${BURST} events ready at once`);
  } finally {
    Object.assign(proto, original);
    ws.terminate();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
