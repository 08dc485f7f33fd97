// Replies written from their response schema: the same JSON as JSON.stringify for a body the
// spec describes, nothing the spec does not declare, and open objects written whole.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { apiDocuments, loadApiDocuments, rpcDocument } from '../../../../src/runtime/api.ts';
import { createLogger } from '../../../../src/runtime/logging/logger.ts';
import { ReplySerializers, SerializerMismatch } from '../../../../src/runtime/transports/http/replySerializers.ts';
import { inProcessApp } from '../../../support/server.ts';
import { createMockHandlers, createMockMethods } from '../../../../src/runtime/mock/producer.ts';
import type { Application } from '../../../../src/runtime/server.ts';
import type { AppFactory } from '../../../../src/compose/server.ts';

const controlPlane = apiDocuments.find((d) => d.key === 'control-plane')!;
const agentServer = apiDocuments.find((d) => d.key === 'agent-server')!;
// each operation's serializers load with its first request (api.ts); these tests write replies directly
before(() => Promise.all(apiDocuments.flatMap((doc) => doc.operations.map((operation) => doc.whenTables?.(operation)))));
before(loadApiDocuments);
const op = (doc: typeof controlPlane, id: string) => doc.operations.find((o) => o.operationId === id)!;
/** The response's example: the unnamed one, else the first named one (a component example). */
function example(doc: typeof controlPlane, path: string, method: string, status: string) {
  const media = doc.document.paths[path][method].responses[status].content['application/json'];
  if (media.example !== undefined) return structuredClone(media.example);
  const first = Object.values(media.examples as Record<string, { $ref?: string; value?: unknown }>)[0];
  const named = first.$ref ? doc.document.components.examples[first.$ref.split('/').pop()!] : first;
  return structuredClone(named.value);
}

test('a documented body is written exactly as JSON.stringify would; an undeclared field is left out, at any depth', () => {
  const lines: string[] = [];
  const serializers = new ReplySerializers(
    apiDocuments,
    createLogger('info', {}, (l) => lines.push(l)),
  );
  const getDeployment = op(controlPlane, 'getDeployment');
  const deployment = example(controlPlane, '/v2/deployments/{deployment_id}', 'get', '200');
  assert.deepEqual(JSON.parse(serializers.write(getDeployment, 200, deployment)), deployment);

  const leaky = { ...deployment, internal_token: 'tok-123', source_config: { ...deployment.source_config, deploy_key: 'ssh-rsa AAAA' } };
  const text = serializers.write(getDeployment, 200, leaky);
  assert.doesNotMatch(text, /tok-123|ssh-rsa|internal_token|deploy_key/);
  assert.deepEqual(JSON.parse(text), deployment);
  assert.deepEqual(lines, [], 'nothing to report: the schema decides');
});

test('objects the spec leaves open (thread metadata, state values) are written whole, in their key order', () => {
  const serializers = new ReplySerializers(apiDocuments, createLogger('silent'));
  const getThread = op(agentServer, 'getThread');
  const thread = example(agentServer, '/threads/{thread_id}', 'get', '200');
  thread.metadata = { zeta: 1, alpha: { nested: [1, { deep: true }] }, graph_id: 'agent' };
  thread.values = { messages: [{ type: 'human', content: 'hi', id: 'm1', additional_kwargs: { anything: 'goes' } }], custom: { n: 1 } };
  const text = serializers.write(getThread, 200, thread);
  assert.deepEqual(JSON.parse(text), thread);
  assert.ok(text.indexOf('"zeta"') < text.indexOf('"alpha"'), 'metadata keeps its key order');
});

test("a thread state's values keep the keys the graph defines beside messages", () => {
  const serializers = new ReplySerializers(apiDocuments, createLogger('silent'), true);
  const getThreadState = op(agentServer, 'getThreadState');
  const state = example(agentServer, '/threads/{thread_id}/state', 'get', '200');
  state.values = { ...state.values, spins: 13867344, plan: { steps: ['a', 'b'] } };
  assert.deepEqual(JSON.parse(serializers.write(getThreadState, 200, state)).values, state.values);
});

test('while replies are checked (tests), a body the schema would change is an error, not a silent fix', () => {
  const serializers = new ReplySerializers(apiDocuments, createLogger('silent'), true);
  const getDeployment = op(controlPlane, 'getDeployment');
  const deployment = example(controlPlane, '/v2/deployments/{deployment_id}', 'get', '200');
  assert.throws(() => serializers.write(getDeployment, 200, { ...deployment, internal_token: 'x' }), SerializerMismatch);
  assert.throws(() => serializers.write(getDeployment, 200, { ...deployment, name: 42 }), SerializerMismatch);
  assert.equal(JSON.parse(serializers.write(getDeployment, 200, deployment)).id, deployment.id);
});

test('without reply checking, a body missing a required field goes out as it is and is logged', () => {
  const lines: string[] = [];
  const serializers = new ReplySerializers(
    apiDocuments,
    createLogger('info', {}, (l) => lines.push(l)),
  );
  const getDeployment = op(controlPlane, 'getDeployment');
  const deployment = example(controlPlane, '/v2/deployments/{deployment_id}', 'get', '200');
  const { name: _dropped, ...nameless } = deployment;
  assert.deepEqual(JSON.parse(serializers.write(getDeployment, 200, nameless)), nameless);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /reply does not fit its schema/);
  assert.match(lines[0], /getDeployment/);
  assert.match(lines[0], /\/v2\/deployments\/\{deployment_id\}/);
});

/** A server whose getDeployment answers a name of the wrong type (a number), as a handler bug would. */
async function serverWithWrongType(checking: '0' | '1', lines: string[]) {
  const app: AppFactory = async () => {
    const handlers = (await createMockHandlers(apiDocuments)) as unknown as Application['handlers'];
    const inner = handlers.getDeployment;
    const getDeployment: typeof inner = async (req, ctx) => {
      const reply = await inner(req, ctx);
      return { ...reply, body: { ...(('body' in reply ? reply.body : {}) as object), name: 42 } } as never;
    };
    return { handlers: { ...handlers, getDeployment }, methods: createMockMethods(rpcDocument.document) as Application['methods'], modules: [] };
  };
  return inProcessApp({ app, env: { AGENTPLANE_VALIDATE_RESPONSES: checking }, log: createLogger('info', {}, (l) => lines.push(l)) });
}

/** What `read` answers once it answers something non-empty (or after 5 s, whatever it answers). */
async function eventually<T>(read: () => T[]): Promise<T[]> {
  const until = Date.now() + 5_000;
  while (read().length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  return read();
}

test('in production, a reply of the wrong type is still answered, and logged with its operation and path', async () => {
  const lines: string[] = [];
  const server = await serverWithWrongType('0', lines);
  try {
    const id = '11111111-2222-4333-8444-555555555555';
    const res = await server.api(`/v2/deployments/${id}`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { name: unknown }).name, '42', 'written as its schema declares it');
    // the validators load once the server listens: a reply written before they arrive is checked when they do
    const logged = await eventually(() => lines.filter((l) => /reply does not fit its schema/.test(l)));
    assert.equal(logged.length, 1, lines.join('\n'));
    assert.match(logged[0], /getDeployment/);
    assert.match(logged[0], new RegExp(`/v2/deployments/${id}`));
    assert.match(logged[0], /must be string/);
  } finally {
    await server.close();
  }
});

test('while replies are checked (tests: AGENTPLANE_VALIDATE_RESPONSES=1), a reply of the wrong type answers 500', async () => {
  const lines: string[] = [];
  const server = await serverWithWrongType('1', lines);
  try {
    const res = await server.api('/v2/deployments/11111111-2222-4333-8444-555555555555');
    assert.equal(res.status, 500);
    assert.match(((await res.json()) as { detail: string }).detail, /Reply violates the spec: getDeployment 200/);
  } finally {
    await server.close();
  }
});

test('a reply without a JSON schema is written by JSON.stringify', () => {
  const serializers = new ReplySerializers(apiDocuments, createLogger('silent'));
  const deleteDeployment = op(controlPlane, 'deleteDeployment');
  assert.equal(serializers.for(deleteDeployment, 204), null);
});

test('a real server writes its replies from the schema: the same bodies the clients already get', async () => {
  // without reply checking, as in production; the bodies still match what the spec documents
  const server = await inProcessApp({ env: { AGENTPLANE_VALIDATE_RESPONSES: '0' } });
  try {
    const created = await server.api('/threads', { method: 'POST', json: { metadata: { b: 2, a: 1 } } });
    const text = await created.text();
    const thread = JSON.parse(text);
    assert.deepEqual(thread.metadata, { b: 2, a: 1 });
    assert.ok(text.indexOf('"b"') < text.indexOf('"a"'));
    const again = await server.api(`/threads/${thread.thread_id}`);
    assert.deepEqual(await again.json(), thread);
  } finally {
    await server.close();
  }
});
