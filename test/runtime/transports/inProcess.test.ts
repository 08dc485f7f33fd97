// The in-process entry answers as the port does: the same pipeline (contract 404s, auth,
// validation, body limits, reply checks) and streams that arrive as they are written and stop
// when the client goes away. No socket is opened.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { inProcessApp, type InProcessApp } from '../../support/server.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

let app: InProcessApp;
before(async () => {
  app = await inProcessApp({ project: testProject, dataDir: null, env: { AGENTPLANE_MAX_BODY_BYTES: '4096' } });
});
after(() => app.close());

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test('opens no port: its URL resolves nowhere, and a Request is answered through handle', async () => {
  assert.equal(app.url, 'http://agentplane.in-process');
  const res = await app.handle(new Request(`${app.url}/ok`));
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ok: true });
});

test('a raw request target reaches the pipeline as sent, and the Host a client sends names the host', async () => {
  // a Request resolves the dot segment away (/docs/ is the docs page); a raw client sends it
  const resolved = await app.handle(new Request(`${app.url}/docs/assets/..`));
  assert.equal(resolved.status, 200);
  await resolved.body?.cancel();
  const raw = await app.handle(new Request(`${app.url}/ok`), { rawPath: '/docs/assets/..' });
  assert.equal(raw.status, 404);
  await raw.body?.cancel();
  const card = (await (await app.fetch('/.well-known/agent-card.json?assistant_id=echo', { headers: { host: 'agents.example:8443' } })).json()) as {
    url: string;
  };
  assert.equal(card.url, 'http://agents.example:8443/a2a/echo');
});

test('an unknown path is the contract 404 {detail}; a wrong method 405 with Allow', async () => {
  const missing = await app.api('/v2/nothing-here');
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { detail: 'Not Found' });
  const wrong = await app.api('/v2/deployments', { method: 'PUT' });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'GET, POST');
});

test('a request that breaks the spec is a 422 listing where', async () => {
  const res = await app.api('/v2/deployments?limit=500&offset=-1');
  assert.equal(res.status, 422);
  const body = (await res.json()) as { detail: { loc: unknown[] }[] };
  assert.deepEqual(
    body.detail.map((d) => d.loc),
    [
      ['query', 'limit'],
      ['query', 'offset'],
    ],
  );
});

test('a call without a key is refused 401, one with another key too; the key in force is let in', async () => {
  const anonymous = await app.fetch('/v2/deployments');
  assert.equal(anonymous.status, 401);
  assert.equal(typeof ((await anonymous.json()) as { detail: unknown }).detail, 'string');
  const wrong = await app.fetch('/v2/deployments', { headers: { 'x-api-key': 'not-a-key' } });
  assert.equal(wrong.status, 401);
  assert.equal((await app.api('/v2/deployments')).status, 200);
});

test('a body over the limit is a 413 and makes nothing', async () => {
  const before = ((await (await app.fetch('/threads/search', json({}))).json()) as unknown[]).length;
  const res = await app.fetch('/threads', json({ metadata: { filler: 'x'.repeat(8192) } }));
  assert.equal(res.status, 413);
  assert.equal(typeof ((await res.json()) as { detail: unknown }).detail, 'string');
  const after = ((await (await app.fetch('/threads/search', json({}))).json()) as unknown[]).length;
  assert.equal(after, before);
});

test('a run stream arrives event by event, and ends the run when the client goes away (on_disconnect: cancel)', async () => {
  const thread = (await (await app.fetch('/threads', json({}))).json()) as { thread_id: string };
  const res = await app.fetch(
    `/threads/${thread.thread_id}/runs/stream`,
    json({ assistant_id: 'slow', input: { messages: [{ role: 'user', content: 'hi' }] }, context: { delay_ms: 60_000 }, on_disconnect: 'cancel' }),
  );
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
  // the run sleeps a minute: its first event here means the body is streamed, not buffered to its end
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes('\n\n')) {
    const { value, done } = await reader.read();
    assert.ok(!done, `the stream ended early: ${text}`);
    text += new TextDecoder().decode(value);
  }
  assert.match(text, /^event: metadata\n/);
  const runId = (JSON.parse(/data: (.*)\n/.exec(text)![1]) as { run_id: string }).run_id;
  await reader.cancel();
  const deadline = Date.now() + 10_000;
  let status = '';
  while (Date.now() < deadline) {
    status = ((await (await app.fetch(`/threads/${thread.thread_id}/runs/${runId}`)).json()) as { status: string }).status;
    if (status !== 'pending' && status !== 'running') break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(status, 'interrupted');
});
