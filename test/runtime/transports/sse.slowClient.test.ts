// A client that stops reading a stream must not make the server queue the stream for it:
// the writer reads its next event only once the socket has taken what was written, so a
// stalled reader holds a bounded amount of memory, and gets every event in order once it reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { writeSse } from '../../../src/runtime/transports/sse.ts';

const EVENTS = 8_000;
const PAYLOAD = 'x'.repeat(10_000); // 80 MB in all

test('a stalled SSE client stops the stream being read, and gets every event once it reads', async () => {
  let produced = 0;
  async function* events() {
    for (let i = 0; i < EVENTS; i += 1) {
      produced += 1;
      yield { event: 'values', id: String(i), data: `${i} ${PAYLOAD}` };
    }
  }
  const server = http.createServer((_req, res) => void writeSse(res, 200, events()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const socket = net.connect({ port, host: '127.0.0.1' });
  try {
    socket.pause(); // the client reads nothing for now
    socket.write(`GET / HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 800));
    // what the loopback socket's kernel buffers (auto-tuned, several MB here) and the writer's bound hold, not the whole stream
    assert.ok(produced < EVENTS / 4, `${produced} of ${EVENTS} events read for a client that reads nothing`);

    // ids read as the bytes come (the body is tens of MB: no rescanning of what was read)
    const ids: number[] = [];
    let tail = '';
    socket.setEncoding('utf8');
    const ended = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 20_000);
      socket.on('data', (chunk: string) => {
        const text = tail + chunk;
        const lines = text.split('\n');
        tail = lines.pop()!;
        for (const line of lines) if (line.startsWith('id: ')) ids.push(Number(line.slice(4)));
        // the chunked body's last chunk: the stream has ended
        if (text.endsWith('\r\n0\r\n\r\n')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
    });
    socket.resume();
    assert.ok(await ended, 'the stream ended');
    assert.deepEqual(
      ids,
      Array.from({ length: EVENTS }, (_, i) => i),
    );
  } finally {
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
