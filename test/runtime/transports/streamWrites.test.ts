// When streams write what they hold (issue 67, streamWrites.ts): the streams with frames in a
// turn of the event loop are written at its end by one immediate, not one each, every frame in
// order. Served by the SSE writer on a plain node:http server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { writeSse } from '../../../src/runtime/transports/sse.ts';

const EVENTS = 20;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An SSE server whose every stream yields `EVENTS` events `gapMs` apart once released; the writes on its side counted. */
async function serve(gapMs: number) {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  async function* events() {
    await released;
    for (let i = 0; i < EVENTS; i += 1) {
      if (i > 0) await sleep(gapMs);
      yield { event: 'values', id: String(i), data: `{"seq":${i}}` };
    }
    await new Promise(() => undefined); // then quiet, the stream open
  }
  const server = http.createServer((_req, res) => void writeSse(res, 200, events()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const count = { writes: 0 };
  const proto = net.Socket.prototype as unknown as Record<'_write' | '_writev', (this: net.Socket, ...args: unknown[]) => void>;
  const original = { _write: proto._write, _writev: proto._writev };
  for (const name of ['_write', '_writev'] as const)
    proto[name] = function (this: net.Socket, ...args: unknown[]) {
      if (this.localPort === port) count.writes += 1;
      return original[name].apply(this, args);
    };
  return {
    port,
    count,
    release,
    async close() {
      Object.assign(proto, original);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Opens a stream; the ids it reads, and when the first arrived. */
function subscribe(port: number) {
  const ids: number[] = [];
  let firstAt = -1;
  const req = http.get({ host: '127.0.0.1', port, path: '/' }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      for (const line of chunk.split('\n'))
        if (line.startsWith('id: ')) {
          if (firstAt < 0) firstAt = performance.now();
          ids.push(Number(line.slice(4)));
        }
    });
  });
  req.on('error', () => undefined);
  return { ids, firstAt: () => firstAt };
}

async function until(done: () => boolean, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await sleep(2);
}

test('the streams with frames in a turn are written by one immediate, not one each', async () => {
  const s = await serve(0);
  const schedule = globalThis.setImmediate;
  let immediates = 0;
  try {
    const clients = Array.from({ length: 50 }, () => subscribe(s.port));
    await until(() => s.count.writes >= 50); // every stream's headers
    await sleep(50);
    globalThis.setImmediate = ((...args: Parameters<typeof setImmediate>) => ((immediates += 1), schedule(...args))) as typeof setImmediate;
    s.release();
    await until(() => clients.every((c) => c.ids.length === EVENTS));
    globalThis.setImmediate = schedule;
    assert.ok(
      clients.every((c) => c.ids.length === EVENTS),
      'every stream got every event',
    );
    // before: an immediate per stream per turn with frames (50 streams × their turns)
    assert.ok(immediates < 50, `${immediates} immediates for 50 streams`);
  } finally {
    globalThis.setImmediate = schedule;
    await s.close();
  }
});
