// Issue 11, item 9: a request body is read only when it is sent as application/json
// (optionally charset=utf-8). A body with no Content-Type used to be parsed as JSON, so a
// cross-site "simple" POST from any page created threads on the open agent server. Others
// get 415 {detail} (the JSON-RPC endpoint: -32600); operations without a body still take none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { fixtureGraphs } from '../../../handlers/a2a/harness.ts';
import { isJsonContentType } from '../../../../src/runtime/transports/http/requestBody.ts';

/** The application's fetch (in process), set once it is made. */
let send: typeof fetch;

/** POST `body` with exactly this Content-Type (undefined: none at all, which fetch would not do for a string). */
function post(url: string, body: string, contentType: string | undefined, headers: Record<string, string> = {}): Promise<Response> {
  return send(url, {
    method: 'POST',
    headers: { ...headers, ...(contentType === undefined ? {} : { 'content-type': contentType }) },
    body: new TextEncoder().encode(body),
  });
}

const REFUSED = [
  undefined,
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json-seq',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/merge-patch+json',
  'application/json; charset=utf-8; x=1',
];
const ACCEPTED = ['application/json', 'application/json; charset=utf-8', 'Application/JSON;Charset="UTF-8"', 'application/json ;charset=utf-8'];

test('isJsonContentType: application/json, optionally charset=utf-8, nothing else', () => {
  for (const ct of ACCEPTED) assert.equal(isJsonContentType(ct), true, ct);
  for (const ct of REFUSED) assert.equal(isJsonContentType(ct), false, String(ct));
});

describe('a real server reads only application/json bodies', () => {
  let server: InProcessApp;
  /** The control plane, whose bodies are read by the same pipeline. */
  let controlPlane: InProcessApp;
  const count = async () => (await (await server.api('/threads/count', { method: 'POST', json: {} })).json()) as number;
  before(async () => {
    [server, controlPlane] = await Promise.all([areaApp('a2a', { project: { graphs: fixtureGraphs } }), areaApp('control-plane')]);
    send = server.fetch;
  });
  after(async () => {
    await server.close();
    await controlPlane.close();
  });

  test('REST: a body without application/json → 415 {detail}, nothing stored', async () => {
    const before = await count();
    for (const ct of REFUSED) {
      const res = await post(`${server.url}/threads`, '{"metadata":{"from":"another site"}}', ct);
      assert.equal(res.status, 415, String(ct));
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const { detail } = (await res.json()) as { detail: string };
      assert.match(detail, /send the body as application\/json/);
      assert.match(detail, ct === undefined ? /without a Content-Type/ : /not /);
    }
    // the control plane too (with its key)
    const cp = await controlPlane.fetch('/v2/deployments', {
      method: 'POST',
      headers: { 'x-api-key': controlPlane.key },
      body: new TextEncoder().encode('{"name":"x"}'),
    });
    assert.equal(cp.status, 415);
    assert.equal(
      ((await (await controlPlane.api('/v2/deployments')).json()) as { resources: unknown[] }).resources.length,
      0,
      'a refused body stored a deployment',
    );
    assert.equal(await count(), before, 'a refused body stored a thread');
  });

  test('REST: application/json with or without charset=utf-8 is read', async () => {
    for (const ct of ACCEPTED) {
      const res = await post(`${server.url}/threads`, '{"metadata":{"ct":"ok"}}', ct);
      assert.equal(res.status, 200, ct);
      assert.deepEqual(((await res.json()) as { metadata: unknown }).metadata, { ct: 'ok' });
    }
  });

  test('operations without a body, and an optional body left out, need no Content-Type', async () => {
    const created = await post(`${server.url}/threads`, '', undefined);
    assert.equal(created.status, 200);
    const { thread_id } = (await created.json()) as { thread_id: string };
    const copy = await server.fetch(`${server.url}/threads/${thread_id}/copy`, { method: 'POST' });
    assert.equal(copy.status, 200);
    const run = await server.api(`/threads/${thread_id}/runs`, { method: 'POST', json: { assistant_id: 'slow', input: {} } });
    assert.equal(run.status, 200);
    const { run_id } = (await run.json()) as { run_id: string };
    const cancel = await server.fetch(`${server.url}/threads/${thread_id}/runs/${run_id}/cancel`, { method: 'POST' });
    assert.ok(cancel.status === 202 || cancel.status === 204, `cancel answered ${cancel.status}`);
  });

  test('A2A: a body without application/json → HTTP 200, JSON-RPC -32600 (id null), nothing started', async () => {
    const before = await count();
    const envelope = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: 'm1', parts: [{ kind: 'text', text: 'hi' }] } },
    });
    for (const ct of [undefined, 'text/plain', 'application/json-seq', 'application/json; charset=utf-16']) {
      const res = await post(`${server.url}/a2a/echo`, envelope, ct);
      assert.equal(res.status, 200, String(ct));
      const reply = (await res.json()) as { id: unknown; error: { code: number; message: string } };
      assert.equal(reply.id, null);
      assert.equal(reply.error.code, -32600, String(ct));
      assert.match(reply.error.message, /Content-Type must be application\/json/);
    }
    assert.equal(await count(), before, 'a refused A2A message started a task');
    const ok = await post(`${server.url}/a2a/echo`, envelope, 'application/json; charset=utf-8');
    assert.equal(((await ok.json()) as { result: { status: { state: string } } }).result.status.state, 'completed');
  });
});
