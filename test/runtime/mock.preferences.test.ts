// Mock mode at Prism's level: a client picks any documented response with `Prefer: code=`,
// `example=`, `dynamic=true` or the `__code`/`__example`/`__dynamic` query forms; path and
// body values come back where the answer has the same field; streams replay their
// documented event sequence; the API key is fixed; every answer is logged with its reason.
// Replies are checked against the spec (the test server validates responses).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { apiDocuments, loadApiDocuments } from '../../src/runtime/api.ts';
import { MOCK_API_KEY } from '../../src/runtime/security/auth.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { createApplication } from '../../src/compose/application.ts';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import { startServer } from '../../src/compose/server.ts';
import { inProcessApp, type InProcessApp } from '../support/server.ts';

type Json = any;
before(loadApiDocuments);
const document = (name: string) => apiDocuments.find((d) => d.document.info.title.toLowerCase().includes(name))!.document as Json;
const exampleValue = (doc: Json, ref: string) =>
  ref
    .slice(2)
    .split('/')
    .reduce((n: Json, p: string) => n[p], doc).value;

describe('mock mode: choosing a documented response', () => {
  let server: InProcessApp;
  // replies that break the spec would answer 500 here (responses are validated)
  before(async () => {
    server = await inProcessApp({ mock: true });
  });
  after(() => server.close());

  it('control plane: Prefer code= answers that status with its example, example= picks a named one', async () => {
    const id = randomUUID();
    const missing = await server.api(`/v2/deployments/${id}/revisions/${randomUUID()}`, { headers: { Prefer: 'code=404, example=revision' } });
    assert.equal(missing.status, 404);
    const cp = document('control plane');
    const documented = cp.paths['/v2/deployments/{deployment_id}/revisions/{revision_id}'].get.responses['404'];
    const body = await missing.json();
    assert.equal(typeof (body as Json).detail, 'string');
    assert.deepEqual(body, resolveExample(cp, documented, 'revision'));

    const docker = (await (await server.api(`/v2/deployments/${id}`, { headers: { Prefer: 'example=external_docker' } })).json()) as Json;
    assert.equal(docker.source, 'external_docker');
    const github = (await (await server.api(`/v2/deployments/${id}?__example=github`)).json()) as Json;
    assert.equal(github.source, 'github');
    // the path value is echoed into the deployment's id
    assert.equal(docker.id, id);
    assert.equal(github.id, id);
  });

  it('control plane: the query form __code= and an undocumented code (the default, said in the log)', async () => {
    const unauthorized = await server.api('/v2/deployments?__code=401');
    assert.equal(unauthorized.status, 401);
    const undocumented = await server.api('/v2/deployments', { headers: { Prefer: 'code=418' } });
    assert.equal(undocumented.status, 200);
  });

  it('control plane: dynamic=true generates a fresh body that matches the schema', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const res = await server.api('/v2/deployments', {
        method: 'POST',
        headers: { Prefer: 'dynamic=true' },
        json: { name: 'dyn', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'r/i:1' } },
      });
      assert.equal(res.status, 201);
      const body = (await res.json()) as Json;
      seen.add(body.id);
    }
    assert.equal(seen.size, 3, 'each dynamic answer is generated afresh');
  });

  it('agent server: code=404, the unnamed example by name, dynamic=true, and the path id echoed', async () => {
    const threadId = randomUUID();
    const missing = await server.api(`/threads/${threadId}`, { headers: { Prefer: 'code=404' } });
    assert.equal(missing.status, 404);
    assert.equal(typeof ((await missing.json()) as Json).detail, 'string');
    const thread = (await (await server.api(`/threads/${threadId}?__example=default`)).json()) as Json;
    assert.equal(thread.thread_id, threadId);
    const a = (await (await server.api(`/threads/${threadId}`, { headers: { Prefer: 'dynamic=true' } })).json()) as Json;
    const b = (await (await server.api(`/threads/${threadId}?__dynamic=true`)).json()) as Json;
    assert.notDeepEqual(a, b, 'generated afresh');
    assert.equal(a.thread_id, threadId);
    assert.equal(b.thread_id, threadId);
  });

  it('agent server: example= picks a named example (GET /info), in header and query form', async () => {
    const off = (await (await server.fetch(`${server.url}/info`, { headers: { Prefer: 'example=protocols_off' } })).json()) as Json;
    assert.deepEqual([off.flags.a2a, off.flags.mcp], [false, false]);
    const on = (await (await server.fetch(`${server.url}/info?__example=defaults`)).json()) as Json;
    assert.deepEqual([on.flags.a2a, on.flags.mcp], [true, true]);
    const dynamic = await server.fetch(`${server.url}/info`, { headers: { Prefer: 'dynamic=true' } });
    assert.equal(dynamic.status, 200);
  });

  it('agent server: body values are echoed where the answer has the field', async () => {
    const metadata = { owner: 'mock-test', n: 7 };
    const created = (await (await server.api('/threads', { method: 'POST', json: { metadata } })).json()) as Json;
    assert.deepEqual(created.metadata, metadata);
  });

  it('a streaming operation replays its documented event sequence', async () => {
    const res = await server.api(`/threads/${randomUUID()}/runs/stream`, { method: 'POST', json: { assistant_id: 'agent', input: {} } });
    assert.equal(res.status, 200);
    const text = await res.text();
    const events = [...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1]);
    assert.deepEqual(events, ['metadata', 'values', 'values']);
    assert.match(text, /2 \+ 2 = 4\./);
  });

  it('an A2A stream sends every example of message/stream, ending with the final status', async () => {
    const res = await server.fetch(`${server.url}/a2a/agent`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hi' }] } },
      }),
    });
    assert.equal(res.status, 200);
    const results = [...(await res.text()).matchAll(/^data: (.+)$/gm)].map((m) => (JSON.parse(m[1]!) as Json).result);
    assert.deepEqual(
      results.map((r) => r.kind),
      ['task', 'status-update'],
    );
    assert.equal(results[1].final, true);
  });
});

function resolveExample(doc: Json, response: Json, name: string): unknown {
  let r = response;
  while (r.$ref)
    r = r.$ref
      .slice(2)
      .split('/')
      .reduce((n: Json, p: string) => n[p], doc);
  const example = r.content['application/json'].examples[name];
  return example.$ref ? exampleValue(doc, example.$ref) : example.value;
}

describe('mock mode: the API key and the log', () => {
  /** A mock server answering in process, its API keys from `apiKeys` alone (the environment's are not read). */
  const mockServer = async (apiKeys: string, log = createLogger('silent')) => {
    const server = await startServer(
      loadConfig(['--port', '0', '--host', '127.0.0.1', '--mock', '--memory'], { AGENTPLANE_API_KEYS: apiKeys }, process.cwd()),
      createApplication,
      log,
      { listen: false },
    );
    return { ...server, fetch: (pathname: string, init?: RequestInit) => server.handle(new Request(server.url + pathname, init)) };
  };

  it('accepts the same fixed key on every start without writing one, or the configured keys', async () => {
    for (let start = 0; start < 2; start++) {
      const server = await mockServer('');
      try {
        const res = await server.fetch(`/v2/deployments`, { headers: { 'X-Api-Key': MOCK_API_KEY.key } });
        assert.equal(res.status, 200);
      } finally {
        await server.close();
      }
    }
    const configured = await mockServer(`my-key:${randomUUID()}`);
    try {
      assert.equal((await configured.fetch(`/v2/deployments`, { headers: { 'X-Api-Key': 'my-key' } })).status, 200);
      assert.equal((await configured.fetch(`/v2/deployments`, { headers: { 'X-Api-Key': MOCK_API_KEY.key } })).status, 401);
    } finally {
      await configured.close();
    }
  });

  it('logs one line per answer naming the response and why', async () => {
    const lines: Json[] = [];
    const log = createLogger('info', {}, (line) => void lines.push(JSON.parse(line)));
    const server = await mockServer(`k:${randomUUID()}`, log);
    try {
      await server.fetch(`/v2/deployments/${randomUUID()}`, { headers: { 'X-Api-Key': 'k', Prefer: 'example=external_docker' } });
      await server.fetch(`/threads/${randomUUID()}`, { headers: { Prefer: 'code=599' } });
    } finally {
      await server.close();
    }
    const mockLines = lines.filter((l) => l.msg === 'mock response');
    assert.equal(mockLines.length, 2);
    assert.deepEqual([mockLines[0].operation, mockLines[0].status, mockLines[0].response], ['getDeployment', 200, 'example "external_docker"']);
    assert.match(mockLines[0].why, /example=external_docker asked/);
    assert.equal(mockLines[1].status, 200);
    assert.match(mockLines[1].why, /code=599 is not documented/);
  });
});
