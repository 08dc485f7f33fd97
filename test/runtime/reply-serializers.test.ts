// Replies written from their response schema: the same JSON as JSON.stringify for a body the
// spec describes, nothing the spec does not declare, and open objects written whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiDocuments } from '../../src/runtime/api.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { ReplySerializers, SerializerMismatch } from '../../src/runtime/replySerializers.ts';
import { startTestServer } from '../support/server.ts';

const controlPlane = apiDocuments.find((d) => d.key === 'control-plane')!;
const agentServer = apiDocuments.find((d) => d.key === 'agent-server')!;
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
  const serializers = new ReplySerializers(apiDocuments, createLogger('info', {}, (l) => lines.push(l)));
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

test('in production, a value of another type goes out as the declared type; a body missing a required field goes out as it is and is logged', () => {
  const lines: string[] = [];
  const serializers = new ReplySerializers(apiDocuments, createLogger('info', {}, (l) => lines.push(l)));
  const getDeployment = op(controlPlane, 'getDeployment');
  const deployment = example(controlPlane, '/v2/deployments/{deployment_id}', 'get', '200');
  assert.equal(JSON.parse(serializers.write(getDeployment, 200, { ...deployment, name: 42 })).name, '42');
  const { name: _dropped, ...nameless } = deployment;
  assert.deepEqual(JSON.parse(serializers.write(getDeployment, 200, nameless)), nameless);
  assert.equal(lines.length, 1);
  assert.match(lines[0], /reply does not fit its schema/);
  assert.match(lines[0], /getDeployment/);
});

test('a reply without a JSON schema is written by JSON.stringify', () => {
  const serializers = new ReplySerializers(apiDocuments, createLogger('silent'));
  const deleteDeployment = op(controlPlane, 'deleteDeployment');
  assert.equal(serializers.for(deleteDeployment, 204), null);
});

test('a real server writes its replies from the schema: the same bodies the clients already get', async () => {
  // without reply checking, as in production; the bodies still match what the spec documents
  const server = await startTestServer({ env: { AGENTPLANE_VALIDATE_RESPONSES: '0' } });
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
