// The control plane's request validators and reply serializers, and the agent server's body
// validators, load with the first request that reads them, not with the server (api.ts,
// lazyTable; that a start does not load them: server.startLoads.e2e.test.ts). Requests that
// arrive together while they load each wait for them and are answered as the contract says:
// validated, refused, served.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { areaApp, type InProcessApp } from '../support/area.ts';

let app: InProcessApp | undefined;
let agentServer: InProcessApp | undefined;
after(async () => {
  await app?.close();
  await agentServer?.close();
});

test('the first control-plane requests, sent together, are validated and answered by the tables they wait for', async () => {
  app = await areaApp('control-plane');
  const [badQuery, listed, keyless, badBody] = await Promise.all([
    app.api('/v2/deployments?limit=nope'),
    app.api('/v2/deployments?limit=5'),
    app.fetch(`${app.url}/v2/deployments`),
    app.api('/v2/deployments', { method: 'POST', json: { name: 42 } }),
  ]);
  assert.equal(badQuery.status, 422);
  assert.deepEqual(((await badQuery.json()) as { detail: { loc: string[] }[] }).detail[0].loc, ['query', 'limit']);
  assert.equal(listed.status, 200);
  const body = (await listed.json()) as { resources: unknown[] };
  assert.ok(Array.isArray(body.resources), 'the list is written by its serializer, in its documented shape');
  assert.equal(keyless.status, 401);
  assert.equal(badBody.status, 422);
  assert.ok(((await badBody.json()) as { detail: { loc: string[] }[] }).detail.some((d) => d.loc[0] === 'body'));
});

test('the first agent-server requests with a body, sent together, are validated by the body validators they wait for', async () => {
  agentServer = await areaApp('agent-server');
  const [refused, created, read] = await Promise.all([
    agentServer.api('/threads', { method: 'POST', json: { metadata: 'not an object' } }),
    agentServer.api('/threads', { method: 'POST', json: { metadata: { n: 1 } } }),
    agentServer.api('/ok'),
  ]);
  assert.equal(refused.status, 422);
  assert.ok(((await refused.json()) as { detail: { loc: string[] }[] }).detail.some((d) => d.loc[0] === 'body' && d.loc[1] === 'metadata'));
  assert.equal(created.status, 200);
  assert.deepEqual(((await created.json()) as { metadata: Record<string, unknown> }).metadata.n, 1);
  assert.equal(read.status, 200);
});
