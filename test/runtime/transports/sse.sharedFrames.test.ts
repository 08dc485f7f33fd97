// An event sent to many SSE streams (a thread's protocol events: one frozen object per event for
// all its subscribers) is framed and encoded once: every stream writes the same bytes, instead
// of each making the frame's text, splitting its data into lines and encoding it again (issue 67).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SseEvent } from '../../../src/runtime/contract.ts';
import { formatSseEvent, writeSse } from '../../../src/runtime/transports/sse.ts';

const shared: SseEvent[] = Array.from({ length: 3 }, (_, i) => Object.freeze({ event: 'values', id: String(i), data: JSON.stringify({ i, text: 'a\nb' }) }));

test('a shared event is written to every stream as the same bytes, and read back intact', async () => {
  const written: unknown[][] = [];
  const server = http.createServer((_req, res) => {
    const chunks: unknown[] = [];
    written.push(chunks);
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    res.write = ((chunk: unknown, ...rest: unknown[]) => (chunks.push(chunk), write(chunk, ...rest))) as typeof res.write;
    async function* events() {
      yield* shared;
    }
    void writeSse(res, 200, events());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const bodies = await Promise.all([0, 1].map(async () => (await fetch(`http://127.0.0.1:${port}/`)).text()));
    const expected = shared.map(formatSseEvent).join('');
    for (const body of bodies) assert.equal(body, expected);
    assert.equal(written.length, 2);
    for (const event of shared) {
      const [a, b] = written.map((chunks) => chunks.find((chunk) => Buffer.isBuffer(chunk) && chunk.toString() === formatSseEvent(event)));
      assert.ok(a && b, `event ${event.id} written to both streams as bytes of its own`);
      assert.equal(a, b, `event ${event.id}: the same bytes for both streams, made once`);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('data without a line break is one data line; data with them is split, so no payload forges a frame', () => {
  assert.equal(formatSseEvent({ event: 'e', id: '1', data: '{"a":"x\\ny"}' }), 'event: e\nid: 1\ndata: {"a":"x\\ny"}\n\n');
  assert.equal(formatSseEvent({ data: 'a\r\nb\rc\nd' }), 'data: a\ndata: b\ndata: c\ndata: d\n\n');
  assert.equal(formatSseEvent({ data: 'event: forged\n\ndata: x' }), 'data: event: forged\ndata: \ndata: data: x\n\n');
});
