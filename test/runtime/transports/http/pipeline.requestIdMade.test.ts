// The access line tests a request id for characters to escape only when a client sent it: one the
// pipeline made (requestIds.ts) has none, and is marked made on the answered request. A client's
// id with a quote in it is still written as JSON that reads back as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { handlerRegistry } from '../../../../src/runtime/handler.ts';
import { createLogger } from '../../../../src/runtime/logging/logger.ts';
import type { AnsweredRequest } from '../../../../src/runtime/transports/http/pipeline.ts';
import { agentServerPipeline } from '../../../support/agentServerPipeline.ts';

test('a request id the pipeline made is marked made; a client’s is not, and its line escapes it', async () => {
  const answered: AnsweredRequest[] = [];
  const raw: string[] = [];
  const log = createLogger('info', {}, (line) => void raw.push(line));
  const key = `key-${randomUUID()}`;
  const fetchIn = agentServerPipeline(key, {
    handlers: handlerRegistry({ getThread: async () => ({ status: 404, body: { detail: 'Thread not found' } }) }),
    observe: (request) => {
      answered.push(request);
      log.access(request);
    },
  });
  const get = async (headers: Record<string, string>) => {
    const res = await fetchIn(new Request(`http://in.process/threads/${randomUUID()}`, { headers: { 'x-api-key': key, ...headers } }));
    await res.text();
    return res.headers.get('x-request-id');
  };

  const made = await get({});
  const sent = await get({ 'x-request-id': 'client "quoted" \\ id' });
  assert.equal(sent, 'client "quoted" \\ id');
  assert.deepEqual(
    answered.map((request) => [request.requestId, request.requestIdMade]),
    [
      [made, true],
      [sent, false],
    ],
  );
  assert.match(made!, /^[0-9a-f]{10}-[0-9a-z]+$/);
  assert.deepEqual(
    raw.map((line) => (JSON.parse(line) as { request_id: string }).request_id),
    [made, sent],
    'each line reads back as the id sent back',
  );
});
