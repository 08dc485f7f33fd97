// readBody decodes a body of one chunk from that chunk, and one of several from their join: a
// character whose UTF-8 bytes are split between chunks reads whole either way; a body past the
// limit is TOO_LARGE, an empty one undefined.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBody, TOO_LARGE } from '../../../../src/runtime/transports/http/requestBody.ts';

/** Sends `parts` as one request's body, each in its own write a little after the last, and gives what readBody read and how many chunks the server got. */
async function read(parts: Buffer[], limit = 1024): Promise<{ body: string | undefined | typeof TOO_LARGE; chunks: number }> {
  let chunks = 0;
  let settle!: (read: { body: string | undefined | typeof TOO_LARGE; chunks: number }) => void;
  const done = new Promise<{ body: string | undefined | typeof TOO_LARGE; chunks: number }>((resolve) => (settle = resolve));
  const server = http.createServer((req, res) => {
    req.on('data', () => (chunks += 1));
    void readBody(req, limit).then((body) => {
      res.end();
      settle({ body, chunks });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  try {
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
    for (const part of parts) {
      await sleep(30);
      socket.write(part);
    }
    return await done;
  } finally {
    socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
}

test('a body of one chunk, and one whose character is split between chunks, read as sent', async () => {
  const one = await read([Buffer.from('{"a":"ü"}')]);
  assert.deepEqual(one, { body: '{"a":"ü"}', chunks: 1 });
  const text = Buffer.from('{"a":"ü🧵"}');
  const at = text.indexOf(0xc3) + 1; // inside ü's two bytes
  const split = await read([text.subarray(0, at), text.subarray(at, at + 3), text.subarray(at + 3)]);
  assert.equal(split.body, '{"a":"ü🧵"}');
  assert.ok(split.chunks > 1, `the body came in ${split.chunks} chunk(s)`);
});

test('an empty body is undefined; one past the limit TOO_LARGE', async () => {
  assert.deepEqual(await read([]), { body: undefined, chunks: 0 });
  assert.equal((await read([Buffer.from('{"a":"12345"}')], 8)).body, TOO_LARGE);
});
