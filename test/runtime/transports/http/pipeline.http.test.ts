// The HTTP contract every operation shares: error shapes, validation, limits, auth, docs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { inProcessApp, type InProcessApp } from '../../../support/server.ts';

let server: InProcessApp;
before(async () => {
  server = await inProcessApp({ mock: true, env: { AGENTPLANE_MAX_BODY_BYTES: '4096' } });
});
after(() => server.close());

test('unknown path → 404 {detail}; wrong method → 405 {detail} with Allow', async () => {
  const notFound = await server.api('/v2/nothing-here');
  assert.equal(notFound.status, 404);
  assert.deepEqual(await notFound.json(), { detail: 'Not Found' });
  const wrong = await server.api('/v2/deployments', { method: 'PUT' });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'GET, POST');
  assert.deepEqual(await wrong.json(), { detail: 'Method Not Allowed' });
});

test('a request that violates the spec gets 422 listing every violation', async () => {
  const res = await server.api(`/v2/deployments?limit=500&offset=-1`, {
    method: 'GET',
  });
  assert.equal(res.status, 422);
  const body = (await res.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
  assert.deepEqual(
    body.detail.map((d) => d.loc),
    [
      ['query', 'limit'],
      ['query', 'offset'],
    ],
  );
  for (const d of body.detail) assert.equal(typeof d.msg, 'string');

  const create = await server.api('/v2/deployments', { method: 'POST', json: { name: '', source: 'ftp', source_config: {}, unexpected: 1 } });
  assert.equal(create.status, 422);
  const items = ((await create.json()) as { detail: { loc: unknown[]; type: string }[] }).detail;
  const locs = items.map((d) => d.loc.join('.'));
  assert.ok(locs.includes('body.source_revision_config'), `missing field listed: ${locs}`);
  assert.ok(locs.includes('body.name'), 'too-short name listed');
  assert.ok(locs.includes('body.source'), 'bad enum listed');
  assert.ok(locs.includes('body.unexpected'), 'extra field listed');
  assert.ok(items.some((d) => d.type === 'missing'));
});

test('bad path uuid → 422 at loc path', async () => {
  const res = await server.api('/v2/deployments/not-a-uuid');
  assert.equal(res.status, 422);
  assert.deepEqual(((await res.json()) as { detail: { loc: unknown[]; type: string }[] }).detail[0].loc, ['path', 'deployment_id']);
});

test('malformed JSON → 422; a wrong content type → 415; a missing required body → 422', async () => {
  const bad = await server.api('/v2/deployments', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name": ' });
  assert.equal(bad.status, 422);
  assert.equal(((await bad.json()) as { detail: { type: string }[] }).detail[0].type, 'json_invalid');
  const text = await server.api('/v2/deployments', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
  assert.equal(text.status, 415);
  assert.match(((await text.json()) as { detail: string }).detail, /application\/json.*not text\/plain/);
  const none = await server.api('/v2/deployments', { method: 'POST' });
  assert.equal(none.status, 422);
  assert.deepEqual(((await none.json()) as { detail: unknown[] }).detail, [{ loc: ['body'], msg: 'Field required', type: 'missing' }]);
});

test('a body over the configured limit → 413 {detail}', async () => {
  const res = await server.api('/threads', { method: 'POST', json: { metadata: { pad: 'x'.repeat(10_000) } } });
  assert.equal(res.status, 413);
  assert.match(((await res.json()) as { detail: string }).detail, /larger than 4096 bytes/);
});

test('control-plane credentials: missing → 401, unknown → 401, bearer works, wrong tenant → 403', async () => {
  const anonymous = await server.fetch(`${server.url}/v2/deployments`);
  assert.equal(anonymous.status, 401);
  assert.match(((await anonymous.json()) as { detail: string }).detail, /Missing credentials/);
  const invalid = await server.api('/v2/deployments', { headers: { 'x-api-key': 'nope' } });
  assert.equal(invalid.status, 401);
  const bearer = await server.fetch(`${server.url}/v2/deployments`, { headers: { authorization: `Bearer ${server.key}` } });
  assert.equal(bearer.status, 200);
  const ownTenant = await server.api('/v2/deployments', { headers: { 'x-api-key': server.key, 'x-tenant-id': server.tenant } });
  assert.equal(ownTenant.status, 200);
  const otherTenant = await server.api('/v2/deployments', { headers: { 'x-api-key': server.key, 'x-tenant-id': randomUUID() } });
  assert.equal(otherTenant.status, 403);
});

test('agent-server routes accept anonymous calls by default', async () => {
  const res = await server.fetch(`${server.url}/ok`);
  assert.equal(res.status, 200);
});

test('the API reference and the spec documents are served without network', async () => {
  const docs = await server.fetch(`${server.url}/docs`);
  assert.equal(docs.status, 200);
  assert.match(await docs.text(), /swagger-ui-bundle\.js/);
  const bundle = await server.fetch(`${server.url}/docs/assets/swagger-ui-bundle.js`);
  assert.equal(bundle.status, 200);
  await bundle.arrayBuffer();
  for (const name of ['control-plane.openapi.yaml', 'agent-server.openapi.yaml', 'a2a.openrpc.json']) {
    const res = await server.fetch(`${server.url}/spec/${name}`);
    assert.equal(res.status, 200, name);
    await res.text();
  }
});

test('open agent-server routes ignore credentials that do not check out (like the upstream dev server)', async () => {
  const probes: Record<string, string>[] = [{ 'x-api-key': 'nope' }, { 'x-api-key': server.key, 'x-tenant-id': randomUUID() }];
  for (const headers of probes) {
    const res = await server.fetch(`${server.url}/ok`, { headers });
    assert.equal(res.status, 200, JSON.stringify(headers));
    await res.text();
  }
});

test('mock mode sends documented response headers', async () => {
  const res = await server.api('/threads/0f3c1c9e-6a4b-4d47-9a3e-2f5d8b7c1a10/runs', { method: 'POST', json: { assistant_id: 'agent' } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-location') ?? '', /^\/threads\/[^/]+\/runs\/[^/]+$/);
  await res.text();
});
