// A pushed stream (issue 87) to a client that never reads: the writer pauses the stream once
// the response holds more than SSE_UNSENT_LIMIT unsent, so the server holds a bounded amount
// for it whatever the stream has, sends it no heart-beats meanwhile, and drops the client (ends
// the connection, closes the stream) once it has taken nothing for the stalled limit. A client
// that reads gets every batch, each written as one buffer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http, { type ServerResponse } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { SSE_UNSENT_LIMIT, writeSse } from '../../../src/runtime/transports/sse.ts';
import type { BatchSink, PushableStream } from '../../../src/runtime/transports/pushedStream.ts';
import type { SseEvent } from '../../../src/runtime/contract.ts';

const PAYLOAD = 'x'.repeat(10_000);
const STALLED_MS = 400;

/** A stream with endless batches of ten 10-kB events, pushed as fast as the writer takes them. */
function endless() {
  const seen = { batches: 0, closed: false, pauses: 0, resumes: 0 };
  let n = 0;
  const stream: PushableStream<SseEvent> = {
    [Symbol.asyncIterator]: () => assert.fail('a pushed stream is not pulled'),
    push(sink: BatchSink<SseEvent>) {
      // as a feed does, it yields to the event loop between turns (a few batches each): a producer
      // that never did would never let the client's going away be seen
      const pump = () => {
        for (let i = 0; i < 8 && !seen.closed; i++) {
          seen.batches += 1;
          const batch = Object.freeze(Array.from({ length: 10 }, () => Object.freeze({ event: 'values', id: String((n += 1)), data: PAYLOAD })));
          if (!sink.deliver(batch)) {
            seen.pauses += 1;
            return;
          }
        }
        if (!seen.closed) setImmediate(pump);
      };
      setImmediate(pump);
      return {
        resume: () => {
          seen.resumes += 1;
          setImmediate(pump);
        },
        close: () => (seen.closed = true),
      };
    },
  };
  return { stream, seen };
}

test('a client that never reads holds at most the unsent limit and a batch, and is dropped once stalled', async () => {
  const { stream, seen } = endless();
  let response: ServerResponse | undefined;
  let written: Promise<void> | undefined;
  const server = http.createServer((_req, res) => {
    response = res;
    written = writeSse(res, 200, stream, {}, undefined, STALLED_MS);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const socket = net.connect({ port, host: '127.0.0.1' });
  try {
    socket.pause(); // the client reads nothing, ever
    socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
    while (!response) await new Promise((resolve) => setTimeout(resolve, 5));
    // the kernel's buffers fill, then the response's; once past the limit nothing more is pushed
    let last = -1;
    while (seen.batches !== last) {
      last = seen.batches;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(!seen.closed, 'still open before the stalled limit');
    assert.ok(response.writableLength <= SSE_UNSENT_LIMIT + 10 * (PAYLOAD.length + 100), `${response.writableLength} bytes held unsent`);
    const began = Date.now();
    const resumed = seen.resumes;
    await written;
    assert.equal(seen.resumes, resumed, 'not resumed once stalled');
    assert.ok(seen.closed, 'the stream is closed');
    assert.ok(response.destroyed, 'the connection is ended');
    assert.ok(Date.now() - began <= STALLED_MS + 1000, `dropped after ${Date.now() - began} ms`);
  } finally {
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

// bounded: a writer that never resumed would leave the client waiting for the rest forever
test('a client that reads gets every pushed event in order, the stream resumed each time it has taken its fill', { timeout: 60_000 }, async () => {
  const { stream, seen } = endless();
  const server = http.createServer((_req, res) => void writeSse(res, 200, stream, {}, undefined, STALLED_MS));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const ids: number[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', path: '/' }, (res) => {
          let tail = '';
          res.setEncoding('utf8');
          // the client takes nothing until the writer has paused the stream once, then reads on:
          // a client reading as fast as the server writes may never fill the kernel's buffers (seen
          // on a loaded CI machine), and the resume is what this test is about
          res.pause();
          const whenPaused = () => (seen.pauses > 0 ? res.resume() : setTimeout(whenPaused, 5));
          whenPaused();
          res.on('data', (chunk: string) => {
            const lines = (tail + chunk).split('\n');
            tail = lines.pop()!;
            for (const line of lines) if (line.startsWith('id: ')) ids.push(Number(line.slice(4)));
            if (ids.length >= 2_000) {
              res.destroy();
              resolve();
            }
          });
        })
        .on('error', reject);
    });
    assert.deepEqual(
      ids.slice(0, 2_000),
      Array.from({ length: 2_000 }, (_, i) => i + 1),
    );
    assert.ok(seen.resumes > 0, 'paused and resumed along the way');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
