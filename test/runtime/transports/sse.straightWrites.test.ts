// A pushed stream's batch (issue 87) goes to each subscriber's connection in one write made at
// once, inside the feed's pass, of one buffer made once per batch (the batch's chunk of the
// chunked encoding): `res.write` would cork the connection, frame the batch in four pieces and
// write them on the next tick, outside the pass's time slices. The client still reads a valid
// chunked body: every event, then the stream's end.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { endStream, writeSse } from '../../../src/runtime/transports/sse.ts';
import { inProcessHandler } from '../../../src/runtime/transports/inProcess.ts';
import type { BatchSink, PushableStream } from '../../../src/runtime/transports/pushedStream.ts';
import type { SseEvent } from '../../../src/runtime/contract.ts';

const SUBSCRIBERS = 3;

test("a batch is written to every subscriber's connection at once, the same bytes in one write each", async () => {
  const sinks: BatchSink<SseEvent>[] = [];
  const stream: PushableStream<SseEvent> = {
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink) {
      sinks.push(sink);
      return { resume: () => undefined, close: () => undefined };
    },
  };
  const responses: http.ServerResponse[] = [];
  const server = http.createServer((_req, res) => {
    responses.push(res);
    void writeSse(res, 200, stream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const bodies = Array.from(
    { length: SUBSCRIBERS },
    () =>
      new Promise<string>((resolve, reject) => {
        http
          .request({ port, host: '127.0.0.1', method: 'POST', path: '/' }, (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => resolve(text));
            res.on('error', reject);
          })
          .on('error', reject)
          .end();
      }),
  );
  // the server's writes on its side of the connections
  const writes: unknown[] = [];
  const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (this: net.Socket, ...args: unknown[]) => void>;
  const original = { _write: proto._write, _writev: proto._writev };
  try {
    while (sinks.length < SUBSCRIBERS) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const name of ['_write', '_writev'] as const)
      proto[name] = function (this: net.Socket, ...args: unknown[]) {
        if (this.localPort === port) writes.push(name === '_write' ? args[0] : 'writev');
        return original[name].apply(this, args);
      };
    const batch = Object.freeze([
      Object.freeze({ event: 'values', id: '1', data: '{"a":1}' }),
      Object.freeze({ event: 'messages', id: '2', data: '{"b":"é"}' }),
    ]);
    for (const sink of sinks) assert.equal(sink.deliver(batch), true);
    // counted before the event loop turns: the writes were made in the pass
    const made = [...writes];
    Object.assign(proto, original);
    assert.equal(made.length, SUBSCRIBERS, `${made.length} writes made at once for ${SUBSCRIBERS} subscribers`);
    assert.ok(made[0] instanceof Buffer, 'one buffer written');
    for (const w of made) assert.equal(w, made[0], 'the same bytes for every subscriber');
    for (const res of responses) endStream(res);
    for (const body of await Promise.all(bodies)) {
      assert.equal(body, 'event: values\nid: 1\ndata: {"a":1}\n\nevent: messages\nid: 2\ndata: {"b":"é"}\n\n');
    }
  } finally {
    Object.assign(proto, original);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('in process (no connection: the entry reads what res.write is given) a pushed batch arrives whole', async () => {
  const batch = Object.freeze([Object.freeze({ event: 'values', id: '1', data: '{"a":1}' }), Object.freeze({ event: 'values', id: '2', data: '{"a":2}' })]);
  const stream: PushableStream<SseEvent> = {
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink) {
      setImmediate(() => sink.deliver(batch));
      return { resume: () => undefined, close: () => undefined };
    },
  };
  const handle = inProcessHandler((_req, res) => void writeSse(res, 200, stream));
  const abort = new AbortController();
  const res = await handle(new Request('http://in-process/', { method: 'POST', signal: abort.signal }));
  const reader = res.body!.getReader();
  let text = '';
  // what arrives within a few seconds (nothing, were the batch written past the entry)
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), 3_000)));
  while (!text.includes('id: 2')) {
    const read = await Promise.race([reader.read(), deadline]);
    if (read === null || read.done) break;
    text += Buffer.from(read.value).toString('utf8');
  }
  clearTimeout(timer);
  abort.abort();
  assert.equal(text, 'event: values\nid: 1\ndata: {"a":1}\n\nevent: values\nid: 2\ndata: {"a":2}\n\n');
});
