import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../../src/runtime/router.ts';
import { apiDocuments } from '../../src/runtime/api.ts';

const router = new Router(apiDocuments);

test('a literal path beats a template, and path parameters are decoded', () => {
  const search = router.match('POST', '/threads/search');
  assert.equal(search.kind === 'operation' && search.operation.operationId, 'searchThreads');
  const get = router.match('GET', '/v2/deployments/0b8f%2D1');
  assert.ok(get.kind === 'operation');
  assert.equal(get.operation.operationId, 'getDeployment');
  assert.deepEqual(get.pathParams, { deployment_id: '0b8f-1' });
});

test('a trailing slash matches the same operation', () => {
  const m = router.match('GET', '/v2/deployments/');
  assert.equal(m.kind === 'operation' && m.operation.operationId, 'listDeployments');
});

test('an unknown path is not found; a known path with another method is 405 with Allow', () => {
  assert.deepEqual(router.match('GET', '/nope'), { kind: 'not-found' });
  const m = router.match('PUT', '/v2/deployments/0b8f');
  assert.equal(m.kind, 'method-not-allowed');
  assert.deepEqual(m.kind === 'method-not-allowed' && m.allow, ['DELETE', 'GET', 'PATCH']);
});

test('disabled operations answer as if absent', () => {
  const r = new Router(apiDocuments, new Set(['a2aRpc', 'getAgentCard']));
  assert.deepEqual(r.match('POST', '/a2a/agent'), { kind: 'not-found' });
  assert.deepEqual(r.match('GET', '/.well-known/agent-card.json'), { kind: 'not-found' });
});
