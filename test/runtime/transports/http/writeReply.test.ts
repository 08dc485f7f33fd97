// writeReply (src/runtime/transports/http/writeReply.ts): a JSON or text reply is written whole
// before the call returns, with no promise to wait for (the pipeline awaits only a stream's); a
// stream's events are written as they come, and its promise settles once the stream has ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { writeReply } from '../../../../src/runtime/transports/http/writeReply.ts';
import { createLogger } from '../../../../src/runtime/logging/logger.ts';
import type { OperationSpec } from '../../../../src/runtime/contract.ts';

/** A response whose bytes are kept instead of sent. */
function response(): { res: ServerResponse; written: () => string } {
  const socket = new Socket();
  const chunks: string[] = [];
  socket.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  }) as Socket['write'];
  const res = new ServerResponse(new IncomingMessage(socket));
  res.assignSocket(socket);
  return { res, written: () => chunks.join('') };
}

const operation = { operationId: 'probe', responses: { '200': {} } } as unknown as OperationSpec;
const options = { headOnly: false, log: createLogger('silent') };

test('a JSON reply and a text reply are written before writeReply returns, and it returns no promise', () => {
  const json = response();
  assert.equal(writeReply(json.res, operation, { status: 200, body: { ok: true } }, options), undefined);
  assert.equal(json.res.writableEnded, true);
  assert.match(json.written(), /\r\n\r\n\{"ok":true\}$/);

  const text = response();
  assert.equal(writeReply(text.res, operation, { status: 200, text: 'plain' }, options), undefined);
  assert.equal(text.res.writableEnded, true);
  assert.match(text.written(), /\r\n\r\nplain$/);
});

test("a stream's reply is a promise that settles once its events are written", async () => {
  const { res, written } = response();
  async function* events() {
    yield { event: 'values', data: { n: 1 } };
  }
  const streaming = writeReply(res, operation, { status: 200, stream: events() }, options);
  assert.ok(streaming instanceof Promise);
  await streaming;
  assert.match(written(), /event: values/);
});
