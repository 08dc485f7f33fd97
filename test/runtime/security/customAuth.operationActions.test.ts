// Custom auth's resource and action come from each operation's `x-auth` in the spec: codegen
// refuses an agent-server operation that does not say, or names an action upstream's auth
// handlers do not know, so no operation can reach a handler unguarded by omission.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectOperations } from '../../../scripts/codegen/operations.ts';
import { operations } from '../../../generated/agent-server/operations.gen.ts';

function documentWith(operation: Record<string, unknown>) {
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/threads': { post: { operationId: 'createThread', summary: 'Create', responses: { '204': { description: 'Done' } }, ...operation } } },
  };
}
const collect = (operation: Record<string, unknown>) => collectOperations('spec.yaml', documentWith(operation), (schema) => schema, { customAuth: true });

test('codegen refuses an operation under custom auth without x-auth', () => {
  assert.throws(() => collect({}), /spec\.yaml: createThread has no x-auth/);
});

test('codegen refuses an x-auth that names no upstream resource and action', () => {
  assert.throws(() => collect({ 'x-auth': { resource: 'threads', action: 'create_thread' } }), /createThread: x-auth .* is not one of/);
  assert.throws(() => collect({ 'x-auth': { resource: 'runs', action: 'create' } }), /is not one of/);
  assert.throws(() => collect({ 'x-auth': 'open' }), /is not one of/);
});

test('x-auth goes into the operation table as the list of events it names, in order', () => {
  assert.deepEqual(collect({ 'x-auth': { resource: 'threads', action: 'create' } }).operations[0].auth, [{ resource: 'threads', action: 'create' }]);
  const copy = [
    { resource: 'threads', action: 'read' },
    { resource: 'threads', action: 'create' },
  ];
  assert.deepEqual(collect({ 'x-auth': copy }).operations[0].auth, copy);
  assert.equal(collect({ 'x-auth': 'public' }).operations[0].auth, 'public');
});

test('codegen refuses an empty list of events, or one naming an event twice', () => {
  assert.throws(() => collect({ 'x-auth': [] }), /is not one of/);
  assert.throws(
    () =>
      collect({
        'x-auth': [
          { resource: 'threads', action: 'read' },
          { resource: 'threads', action: 'read' },
        ],
      }),
    /each event once/,
  );
});

test("every REST operation of the agent server's table declares its auth; its JSON-RPC endpoint does not", () => {
  const rest = operations.filter((op) => !op.jsonrpc);
  assert.deepEqual(
    rest.filter((op) => op.auth === undefined).map((op) => op.operationId),
    [],
  );
  assert.deepEqual(
    operations.filter((op) => op.jsonrpc && op.auth !== undefined).map((op) => op.operationId),
    [],
  );
  const byId = new Map(operations.map((op) => [op.operationId, op.auth]));
  assert.deepEqual(byId.get('listStoreNamespaces'), [{ resource: 'store', action: 'list_namespaces' }]);
  assert.deepEqual(byId.get('searchAssistants'), [{ resource: 'assistants', action: 'search' }]);
  assert.equal(byId.get('health'), 'public');
  assert.equal(byId.get('mcpRpc'), 'authenticated');
});
