// Mock mode walks the whole operation table: every operation answers its documented success
// status with a body valid against the documented schema, built from the spec's examples.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { apiDocuments, loadApiDocuments, loadResponseValidators, rpcDocument, rpcDocumentV1 } from '../../src/runtime/api.ts';
import { inProcessApp, type InProcessApp } from '../support/server.ts';

type Json = any;
let server: InProcessApp;
before(async () => {
  await loadApiDocuments();
  server = await inProcessApp({ mock: true });
});
after(() => server.close());

const resolve = (doc: Json, node: Json): Json => {
  let cur = node;
  while (cur?.$ref)
    cur = cur.$ref
      .slice(2)
      .split('/')
      .reduce((n: Json, p: string) => n?.[p], doc);
  return cur;
};

function exampleOf(doc: Json, media: Json): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  if (media.examples) return resolve(doc, Object.values(media.examples)[0]).value;
  const schema = resolve(doc, media.schema);
  return schema?.examples?.[0];
}

function pathValue(doc: Json, param: Json): string {
  const p = resolve(doc, param);
  if (p.example !== undefined) return String(p.example);
  const schema = resolve(doc, p.schema);
  if (schema?.format === 'uuid') return randomUUID();
  return String(schema?.examples?.[0] ?? 'agent');
}

/** The listener token the mock hands out, as a client gets it: from its createListener answer. */
let listenerToken: string | undefined;
async function mockListenerToken(): Promise<string> {
  const created = await server.api('/v2/listeners', { method: 'POST', json: { compute_type: 'local', compute_id: 'mock-host', compute_config: {} } });
  return (listenerToken ??= ((await created.json()) as { token: string }).token);
}

test("mock mode checks a listener's token as real mode does: the token its createListener hands out opens the listener's calls, a made-up one is 401", async () => {
  const token = await mockListenerToken();
  assert.match(token, /^aplt_/);
  const listener = '5f0e1d2c-3b4a-4958-8776-a5b4c3d2e1f0';
  const revision = '3f0c7f0e-8d4a-4f5e-9a51-1c2b3d4e5f60';
  const calls: [string, unknown][] = [
    [`/v2/listeners/${listener}/heartbeat`, undefined],
    [`/v2/listeners/${listener}/revisions/${revision}/status`, { status: 'DEPLOYED' }],
    [`/v2/listeners/${listener}/revisions/${revision}/logs`, { type: 'build', from: 0, logs: [{ timestamp: null, level: null, message: 'x' }] }],
    [`/v2/listeners/${listener}/deployments/${revision}/removed`, undefined],
  ];
  for (const [path, json] of calls) {
    const post = (headers: Record<string, string>) =>
      server.fetch(server.url + path, {
        method: 'POST',
        headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
    for (const forged of [`aplt_${'A'.repeat(43)}`, 'made-up', token.toLowerCase(), server.key]) {
      const res = await post({ 'x-listener-token': forged });
      assert.equal(res.status, 401, `${path} with ${forged}: ${res.status}`);
      assert.equal(res.headers.get('www-authenticate'), 'X-Listener-Token');
      assert.match(((await res.json()) as { detail: string }).detail, /listener token/i);
    }
    // an API key is no listener credential in mock mode either
    assert.equal((await post({ 'x-api-key': server.key })).status, 401, path);
    const res = await post({ 'x-listener-token': token });
    assert.ok(res.status === 200 || res.status === 204, `${path} with the mock's token: ${res.status}`);
  }
});

test('every operation of both documents answers from the spec in mock mode', async () => {
  const validators = await loadResponseValidators();
  let walked = 0;
  for (const { document, operations } of apiDocuments) {
    for (const op of operations) {
      const raw = document.paths[op.path][op.method.toLowerCase()];
      const params = [...(document.paths[op.path].parameters ?? []), ...(raw.parameters ?? [])].map((p: Json) => resolve(document, p));
      let url = op.path;
      for (const p of params.filter((p: Json) => p.in === 'path')) url = url.replace(`{${p.name}}`, encodeURIComponent(pathValue(document, p)));
      const required = params.filter((p: Json) => p.in === 'query' && p.required);
      if (required.length) url += `?${new URLSearchParams(required.map((p: Json): [string, string] => [p.name, pathValue(document, p)]))}`;
      let body: unknown;
      let form: URLSearchParams | undefined;
      if (op.jsonrpc) {
        body = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'task-1' } };
      } else if (raw.requestBody) {
        const content = resolve(document, raw.requestBody).content;
        body = content['application/json'] ? (exampleOf(document, content['application/json']) ?? {}) : undefined;
        // a form (the development provider's consent and token endpoint) is sent as a browser or an OAuth client sends it
        if (content['application/x-www-form-urlencoded'])
          form = new URLSearchParams(exampleOf(document, content['application/x-www-form-urlencoded']) as Record<string, string>);
      }
      // a listener's own calls take its token, never the API key: the one the mock's createListener hands out
      // the A2A v1.0 HTTP+JSON operations answer only a request that asks for 1.0
      const version: Record<string, string> = !op.jsonrpc && op.params.headerNames.includes('a2a-version') ? { 'A2A-Version': '1.0' } : {};
      const headers = { 'x-listener-token': await mockListenerToken(), ...version };
      const res = await server.api(url, form ? { method: op.method, body: form, headers } : { method: op.method, json: body, headers });
      const status = String(res.status);
      const text = await res.text();
      // a WebSocket's success is its upgrade (101): a plain request gets 426 Upgrade Required
      // a form's success may send the browser on (303)
      const expected = op.responses['101'] ? ['426'] : Object.keys(op.responses).filter((s) => s.startsWith('2') || s === '303');
      assert.ok(expected.includes(status), `${op.operationId}: ${status} not among documented ${expected} — ${text}`);
      const declared = op.responses[status];
      if (declared.contentType === 'text/event-stream') {
        assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/, op.operationId);
      } else if (declared.validator) {
        const json = JSON.parse(text);
        const validate = validators.http[declared.validator];
        assert.ok(validate(json), `${op.operationId} ${status}: ${JSON.stringify(validate.errors)}`);
        if (op.jsonrpc) assert.ok(validators.rpc.tasks_get((json as Json).result), 'a2a mock result matches the OpenRPC schema');
      } else if (declared.contentType?.startsWith('text/')) {
        assert.ok(res.headers.get('content-type')?.startsWith(declared.contentType), `${op.operationId}: ${declared.contentType}`);
        assert.ok(text.length > 0, `${op.operationId} ${status} has a text body`);
      } else {
        assert.equal(text, '', `${op.operationId} ${status} has no body`);
      }
      walked += 1;
    }
  }
  assert.ok(walked >= 30, `walked ${walked} operations`);
});

// each A2A version from its own document, picked by A2A-Version as in real mode (issue 85: the
// mock answered v1.0's SendMessage -32601)
for (const [version, document] of [
  [null, rpcDocument],
  ['1.0', rpcDocumentV1],
] as const) {
  test(`every JSON-RPC method of A2A ${version ?? '0.3 (no A2A-Version)'} answers from its OpenRPC examples in mock mode`, async () => {
    const validators = await loadResponseValidators();
    const results = version ? validators.rpcV1 : validators.rpc;
    const doc = document.document;
    for (const m of document.methods) {
      const method = resolve(
        doc,
        doc.methods.find((x: Json) => x.name === m.name),
      );
      const example = resolve(doc, method.examples?.[0]);
      const params = Object.fromEntries((example?.params ?? []).map((p: Json) => [p.name, resolve(doc, p).value]));
      const res = await server.fetch(`${server.url}/a2a/agent`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: m.streaming ? 'text/event-stream' : 'application/json',
          ...(version ? { 'A2A-Version': version } : {}),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: m.name, method: m.name, params }),
      });
      assert.equal(res.status, 200, m.name);
      const text = await res.text();
      const replies = m.streaming
        ? text
            .split('\n')
            .filter((l) => l.startsWith('data: '))
            .map((l) => JSON.parse(l.slice(6)))
        : [JSON.parse(text)];
      assert.ok(replies.length > 0, m.name);
      for (const reply of replies) {
        assert.equal(reply.id, m.name);
        assert.ok('result' in reply, `${m.name}: ${JSON.stringify(reply.error)}`);
        assert.ok(results[m.validator](reply.result), `${m.name}: ${JSON.stringify(results[m.validator].errors)}`);
      }
    }
  });
}

test('mock mode negotiates the A2A version as real mode: another version is -32009, a 0.3 method under 1.0 is -32601', async () => {
  const call = async (version: string, method: string) => {
    const res = await server.fetch(`${server.url}/a2a/agent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': version },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } } }),
    });
    return (await res.json()) as Json;
  };
  const other = await call('2.0', 'SendMessage');
  assert.equal(other.id, 7);
  assert.equal(other.error.code, -32009);
  assert.equal(other.error.data[0].reason, 'VERSION_NOT_SUPPORTED');
  assert.equal((await call('1.0', 'message/send')).error.code, -32601);
  const sent = await call('1.0', 'SendMessage');
  assert.ok(sent.result.task.status.state.startsWith('TASK_STATE_'), JSON.stringify(sent));
});

test('the mock reads A2A HTTP+JSON bodies by their typed v1.0 schemas: {} is no SendMessageRequest (400 INVALID_ARGUMENT naming message)', async () => {
  const res = await server.fetch(`${server.url}/a2a/agent/v1/message:send`, {
    method: 'POST',
    headers: { 'content-type': 'application/a2a+json', 'A2A-Version': '1.0' },
    body: '{}',
  });
  assert.equal(res.status, 400);
  const { error } = (await res.json()) as Json;
  assert.equal(error.status, 'INVALID_ARGUMENT');
  const bad = error.details.find((d: Json) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest');
  assert.deepEqual(
    bad.fieldViolations.map((v: Json) => v.field),
    ['message'],
  );
});

test('the mock answers A2A HTTP+JSON only to A2A-Version 1.0, as real mode: none (0.3) or another is 400 VERSION_NOT_SUPPORTED', async () => {
  for (const headers of [{}, { 'A2A-Version': '0.3' }, { 'A2A-Version': '2.0' }] as Record<string, string>[]) {
    const res = await server.fetch(`${server.url}/a2a/agent/v1/tasks/abc`, { headers });
    assert.equal(res.status, 400, JSON.stringify(headers));
    const { error } = (await res.json()) as Json;
    assert.equal(error.status, 'FAILED_PRECONDITION');
    assert.equal(error.details[0].reason, 'VERSION_NOT_SUPPORTED');
  }
  const asked = await server.fetch(`${server.url}/a2a/agent/v1/tasks/abc?A2A-Version=1.0`);
  assert.equal(asked.status, 200);
  assert.equal(((await asked.json()) as Json).id, 'abc');
});
