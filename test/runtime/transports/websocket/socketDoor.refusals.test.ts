// A flood of key-less upgrades is refused without a refusal made for each (issue 83: A's
// refused upgrades, ~125 a second, were a share of what the server allocated while another
// tenant waited): the key ring answers every key-less or unknown key with the same frozen 401,
// and the answer's text of a frozen reply is written once, then sent as it is. A reply made for
// one request (a custom auth's) is written each time, and every answer closes its connection.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { KeyRing } from '../../../../src/runtime/security/auth.ts';
import { refuseUpgrade } from '../../../../src/runtime/transports/websocket/socketDoor.ts';
import { httpError, type HttpReply } from '../../../../src/runtime/errors.ts';

/** The text `refuseUpgrade` writes on a socket of its own, and how many JSON texts it made meanwhile. */
function refused(reply: HttpReply, times: number): { texts: string[]; stringified: number } {
  const texts: string[] = [];
  const stringify = JSON.stringify;
  let stringified = 0;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => (stringified++, stringify(...args))) as typeof stringify;
  try {
    for (let i = 0; i < times; i++) {
      const socket = new PassThrough();
      socket.on('data', (chunk: Buffer) => texts.push(chunk.toString()));
      refuseUpgrade(socket, reply);
    }
  } finally {
    JSON.stringify = stringify;
  }
  return { texts, stringified };
}

test('every key-less or unknown key is refused with the same 401, whose answer is written once', () => {
  const ring = new KeyRing([{ key: 'key-a', tenants: ['0f3c1c9e-6a4b-4d47-9a3e-2f5d8b7c1a10'] }]);
  const keyless = ring.authenticate({}, true);
  assert.equal(ring.authenticate({}, true), keyless, 'the same refusal for each key-less request');
  assert.equal(ring.authenticate({ 'x-api-key': 'nope' }, true), ring.authenticate({ 'x-api-key': 'other' }, true));
  assert.ok('status' in keyless && keyless.status === 401);

  const { texts, stringified } = refused(keyless, 50);
  assert.equal(texts.length, 50);
  assert.equal(stringified, 1, 'its JSON made once for 50 refusals');
  assert.equal(new Set(texts).size, 1);
  assert.match(texts[0]!, /^HTTP\/1\.1 401 Unauthorized\r\n/);
  assert.match(texts[0]!, /\r\nconnection: close\r\n/);
  assert.match(texts[0]!, /\r\nWWW-Authenticate: Bearer\r\n\r\n\{"detail":"Missing credentials/);
});

test('a reply made for one request is written each time, as it is', () => {
  const { texts, stringified } = refused(httpError(403, 'Forbidden by the project’s auth.', { 'X-Why': 'custom' }), 3);
  assert.equal(stringified, 3);
  assert.equal(texts.length, 3);
  assert.match(texts[2]!, /^HTTP\/1\.1 403 Forbidden\r\n[\s\S]*X-Why: custom\r\n\r\n\{"detail":"Forbidden by the project’s auth\."\}$/);
});
