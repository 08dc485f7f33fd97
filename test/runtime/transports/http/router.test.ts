import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router } from '../../../../src/runtime/transports/http/router.ts';
import { apiDocuments } from '../../../../src/runtime/api.ts';

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

test('a template is tried only against paths of its segment count; a leading parameter matches any first segment', () => {
  const op = (operationId: string, method: string, path: string) => ({ operationId, method, path }) as never;
  const r = new Router([
    {
      operations: [
        op('byTenant', 'GET', '/{tenant}/items/{id}'),
        op('item', 'GET', '/shop/items/{id}'),
        op('deep', 'GET', '/shop/items/{id}/parts'),
        op('shallow', 'GET', '/shop/{id}'),
        op('remove', 'DELETE', '/{tenant}/items/{id}'),
      ],
    },
  ]);
  const id = (m: ReturnType<Router['match']>) => (m.kind === 'operation' ? [m.operation.operationId, m.pathParams] : m.kind);
  assert.deepEqual(id(r.match('GET', '/shop/items/7')), ['item', { id: '7' }], 'the more specific template wins');
  assert.deepEqual(id(r.match('GET', '/acme/items/7')), ['byTenant', { tenant: 'acme', id: '7' }]);
  assert.deepEqual(id(r.match('GET', '/shop/items/7/parts')), ['deep', { id: '7' }]);
  assert.deepEqual(id(r.match('GET', '/shop/7')), ['shallow', { id: '7' }]);
  assert.deepEqual(id(r.match('GET', '/shop/items/7/parts/')), ['deep', { id: '7' }], 'a trailing slash adds no segment');
  assert.equal(id(r.match('GET', '/shop/items/7/other')), 'not-found');
  assert.equal(id(r.match('GET', '/other/7')), 'not-found');
  const notAllowed = r.match('PUT', '/acme/items/7');
  assert.deepEqual(notAllowed.kind === 'method-not-allowed' && notAllowed.allow, ['DELETE', 'GET']);
});

test("a template is tried only against paths that begin with its literal prefix; one prefix of another's takes only its own paths", () => {
  const op = (operationId: string, method: string, path: string) => ({ operationId, method, path }) as never;
  const r = new Router([
    {
      operations: [
        op('a', 'GET', '/v2/a/{id}'),
        op('ab', 'GET', '/v2/ab/{id}'),
        op('anyKind', 'GET', '/v2/{kind}/{id}'),
        op('runOf', 'GET', '/v2/a/{id}/runs/{run}'),
      ],
    },
  ]);
  const id = (m: ReturnType<Router['match']>) => (m.kind === 'operation' ? [m.operation.operationId, m.pathParams] : m.kind);
  assert.deepEqual(id(r.match('GET', '/v2/a/1')), ['a', { id: '1' }]);
  assert.deepEqual(id(r.match('GET', '/v2/ab/1')), ['ab', { id: '1' }], "'/v2/a/' is no prefix of it");
  assert.deepEqual(id(r.match('GET', '/v2/abc/1')), ['anyKind', { kind: 'abc', id: '1' }]);
  assert.deepEqual(id(r.match('GET', '/v2/a/1/runs/2')), ['runOf', { id: '1', run: '2' }], 'literal segments after a parameter still count');
  assert.equal(id(r.match('GET', '/v2/a/1/jobs/2')), 'not-found');
  assert.equal(id(r.match('GET', '/v3/a/1')), 'not-found');
});
