// The control plane's request validators and reply serializers, and the agent server's body
// validators, params validators and reply serializers, load with the first request that reads them, not with the server (api.ts,
// lazyTable; that a start does not load them: server.startLoads.e2e.test.ts). Requests that
// arrive together while they load each wait for them and are answered as the contract says:
// validated, refused, served.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { areaApp, type InProcessApp } from '../support/area.ts';
import { childImport } from '../support/childImports.ts';
import type { ValidatorTable } from '../../src/runtime/contract.ts';

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

test("an agent-server operation's reply serializers load with its first request, and that reply is written by them", async () => {
  // a fresh instance of the module (its own lazy tables), whatever this process's other tests loaded
  // (the run's compiled copy under npm test, whose compiler rewrites only a literal specifier; the source under tsx)
  const fresh = (await import(`${childImport('src/runtime/api.ts').url}?fresh=${Date.now()}`)) as typeof import('../../src/runtime/api.ts');
  const { ReplySerializers } = await import('../../src/runtime/transports/http/replySerializers.ts');
  const { createLogger } = await import('../../src/runtime/logging/logger.ts');
  const doc = fresh.apiDocuments.find((d) => d.key === 'agent-server')!;
  const getAssistant = doc.operations.find((o) => o.operationId === 'getAssistant')!;
  assert.equal(doc.tablesLoaded?.(getAssistant), false, 'not loaded with the module');
  assert.equal(doc.serializers.getAssistant_200, undefined);
  const health = doc.operations.find((o) => o.operationId === 'health')!;
  await doc.whenTables?.(getAssistant);
  assert.equal(doc.tablesLoaded?.(getAssistant), true);
  assert.equal(typeof doc.serializers.getAssistant_200, 'function');
  assert.equal(doc.whenTables?.(getAssistant), undefined, 'loaded once');
  assert.equal(doc.serializers.health_200, undefined, "another operation's are not loaded with it");
  await doc.whenTables?.(health);
  const assistant = {
    assistant_id: '11111111-2222-4333-8444-555555555555',
    graph_id: 'agent',
    config: {},
    context: {},
    created_at: '2026-12-01T00:00:00Z',
    updated_at: '2026-12-01T00:00:00Z',
    metadata: {},
    version: 1,
    name: 'agent',
    description: null,
  };
  const text = new ReplySerializers([doc], createLogger('silent')).write(getAssistant, 200, { ...assistant, internal_token: 'tok-123' });
  assert.doesNotMatch(text, /tok-123/, 'written by the schema: an undeclared field never reaches the client');
  assert.equal(JSON.parse(text).assistant_id, assistant.assistant_id);
});

test("an agent-server operation's params validators load with its first request, not with the module or another operation", async () => {
  const fresh = (await import(`${childImport('src/runtime/api.ts').url}?fresh=params${Date.now()}`)) as typeof import('../../src/runtime/api.ts');
  const doc = fresh.apiDocuments.find((d) => d.key === 'agent-server')!;
  const getThread = doc.operations.find((o) => o.operationId === 'getThread')!;
  assert.equal(doc.tablesLoaded?.(getThread), false, 'not loaded with the module');
  assert.equal(doc.params.getThread_path, undefined);
  await doc.whenTables?.(getThread);
  assert.equal(doc.tablesLoaded?.(getThread), true);
  assert.equal(doc.params.health_query, undefined, "another operation's are not loaded with it");
  // read again after the load (the assertion above narrowed the property to undefined)
  const validate = (doc.params as ValidatorTable).getThread_path;
  assert.equal(validate({ thread_id: '11111111-2222-4333-8444-555555555555' }), true);
  assert.equal(validate({ thread_id: 'not-a-uuid' }), false, 'the loaded validator checks as the contract says');
  // an operation whose params have the same schema is served by the same module (generated once), and checks the same way
  const copyThread = doc.operations.find((o) => o.operationId === 'copyThread')!;
  assert.equal(doc.tablesLoaded?.(copyThread), false, 'each operation still loads its own entry');
  await doc.whenTables?.(copyThread);
  const copyValidate = (doc.params as ValidatorTable).copyThread_path;
  assert.equal(copyValidate, validate, 'one module for one schema');
  assert.equal(copyValidate({ thread_id: 'not-a-uuid' }), false);
  assert.equal(copyValidate({ thread_id: '11111111-2222-4333-8444-555555555555' }), true);
});

test('the first agent-server read of its kind, sent with others, is answered and refused as the contract says', async () => {
  agentServer ??= await areaApp('agent-server');
  const [missing, badId, ok] = await Promise.all([
    agentServer.api('/assistants/11111111-2222-4333-8444-555555555555'),
    agentServer.api('/threads/not-a-uuid'),
    agentServer.api('/ok'),
  ]);
  assert.equal(missing.status, 404);
  assert.equal(typeof ((await missing.json()) as { detail?: unknown }).detail, 'string');
  assert.equal(badId.status, 422);
  assert.deepEqual(((await badId.json()) as { detail: { loc: string[] }[] }).detail[0].loc, ['path', 'thread_id']);
  assert.deepEqual(await ok.json(), { ok: true });
});
