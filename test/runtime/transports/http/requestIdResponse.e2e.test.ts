// X-Request-Id on every answer of a listening agentplane, now that it is put in the head when
// the head is written (src/runtime/transports/http/requestIdResponse.ts) rather than set when the request
// arrives: answers of the contract (a reply with a header of its own, errors, a stream), of
// the router (404, 405), the docs, a CORS preflight, HEAD; the client's own id echoed. On a
// socket: in process (light-my-request) the id is set as before.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../../support/server.ts';
import { testProject } from '../../../fixtures/agent-server/project.ts';

// made by the server: its process's prefix and a count (requestIds.ts)
const MADE = /^[0-9a-f]{10}-[0-9a-z]+$/;

let server: TestServer;
before(async () => {
  server = await startTestServer({ dataDir: null, project: testProject });
});
after(() => server.close());

test('every kind of answer carries one X-Request-Id, made for it or the client’s own', async () => {
  const answers: [string, Response][] = [
    ['GET /ok', await fetch(`${server.url}/ok`)],
    ['HEAD /ok', await fetch(`${server.url}/ok`, { method: 'HEAD' })],
    ['a text reply with a header of its own', await server.api('/metrics')],
    ['a list', await server.api('/v2/deployments')],
    ['401', await fetch(`${server.url}/v2/deployments`)],
    ['422', await server.api('/threads/search', { method: 'POST', json: { limit: 'many' } })],
    ['404 of the router', await fetch(`${server.url}/no/such/path`)],
    ['405', await fetch(`${server.url}/ok`, { method: 'DELETE' })],
    ['the docs', await fetch(`${server.url}/spec/agent-server.openapi.yaml`)],
    [
      'a CORS preflight',
      await fetch(`${server.url}/threads`, { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' } }),
    ],
  ];
  assert.deepEqual(
    answers.map(([, res]) => res.status),
    [200, 200, 200, 200, 401, 422, 404, 405, 200, 204],
  );
  assert.match(answers[2][1].headers.get('content-type') ?? '', /^text\/plain/);
  for (const [what, res] of answers) {
    await res.arrayBuffer();
    assert.match(res.headers.get('x-request-id') ?? '', MADE, what);
  }
  const ids = answers.map(([, res]) => res.headers.get('x-request-id'));
  assert.equal(new Set(ids).size, ids.length, 'one id per request');
  const given = await server.api('/threads', { method: 'POST', json: {}, headers: { 'x-request-id': 'client-7' } });
  assert.equal(given.status, 200);
  assert.equal(given.headers.get('x-request-id'), 'client-7');
  // a stream: the id is in its head, sent before the first event
  const thread = (await given.json()) as { thread_id: string };
  const stream = await server.api(`/threads/${thread.thread_id}/stream/events`, { method: 'POST', json: { channels: ['lifecycle'] } });
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get('x-request-id') ?? '', MADE, 'a stream');
  await stream.body?.cancel();
});
