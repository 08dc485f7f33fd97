// The A2A v1.0 HTTP+JSON bodies are typed by the OpenRPC document's schemas, copied into the
// agent server's bundled OpenAPI document (issue 85: they were open objects, so no fuzzer or
// generated client could check them).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { inlineForeignSchemas } from '../../../scripts/codegen/foreignSchemas.ts';
import { apiDocuments, loadApiDocuments } from '../../../src/runtime/api.ts';
import { tempDir } from '../../support/tempDirs.ts';

type Json = any;
before(loadApiDocuments);

test('a $ref into a2a-v1.openrpc.json becomes a local A2AV1 schema, with what it refers to, once', () => {
  const dir = tempDir('foreign-');
  fs.writeFileSync(
    path.join(dir, 'a2a-v1.openrpc.json'),
    JSON.stringify({
      components: {
        schemas: {
          Task: { type: 'object', properties: { status: { $ref: '#/components/schemas/Status' }, parent: { $ref: '#/components/schemas/Task' } } },
          Status: { type: 'string' },
        },
      },
    }),
  );
  const doc = inlineForeignSchemas(
    {
      paths: {
        '/a': { get: { responses: { 200: { content: { 'application/json': { schema: { $ref: './a2a-v1.openrpc.json#/components/schemas/Task' } } } } } } },
      },
      components: { schemas: { Own: { $ref: './a2a-v1.openrpc.json#/components/schemas/Status' } } },
    },
    dir,
  );
  assert.equal(doc.paths['/a'].get.responses[200].content['application/json'].schema.$ref, '#/components/schemas/A2AV1Task');
  assert.deepEqual(doc.components.schemas.A2AV1Task.properties, {
    status: { $ref: '#/components/schemas/A2AV1Status' },
    parent: { $ref: '#/components/schemas/A2AV1Task' },
  });
  assert.deepEqual(doc.components.schemas.A2AV1Status, { type: 'string' });
  assert.equal(doc.components.schemas.Own.$ref, '#/components/schemas/A2AV1Status');
  assert.throws(() => inlineForeignSchemas({ a: { $ref: './other.json#/components/schemas/X' } }, dir), /only a2a-v1.openrpc.json may lend/);
  assert.throws(() => inlineForeignSchemas({ a: { $ref: './a2a-v1.openrpc.json#/components/schemas/Nope' } }, dir), /no such schema/);
});

test('the bundled agent-server document types every A2A HTTP+JSON body: no open object left', () => {
  const { document, operations } = apiDocuments.find((d) => d.operations.some((op) => op.operationId === 'a2aRestSendMessage'))!;
  const schemaOf = (node: Json): Json => (node?.$ref ? document.components.schemas[node.$ref.split('/').pop()] : node);
  const typed: Record<string, [string | undefined, string | undefined]> = {};
  for (const op of operations.filter((o) => o.operationId.startsWith('a2aRest'))) {
    const raw = document.paths[op.path][op.method.toLowerCase()];
    const request = raw.requestBody?.content?.['application/json']?.schema;
    const success = Object.entries(raw.responses as Record<string, Json>).find(([status]) => status.startsWith('2'))?.[1];
    const response = success?.content?.['application/a2a+json']?.schema;
    typed[op.operationId] = [request?.$ref ?? (request ? 'inline' : undefined), response?.$ref];
    for (const schema of [request, response].filter(Boolean)) {
      const resolved = schemaOf(schema);
      assert.ok(resolved.properties && Object.keys(resolved.properties).length > 0, `${op.operationId}: a typed body, not an open object`);
    }
  }
  const ref = (name: string) => `#/components/schemas/A2AV1${name}`;
  assert.deepEqual(typed.a2aRestSendMessage, ['inline', ref('SendMessageResponse')]);
  assert.deepEqual(typed.a2aRestGetTask, [undefined, ref('Task')]);
  assert.deepEqual(typed.a2aRestListTasks, [undefined, ref('ListTasksResponse')]);
  assert.deepEqual(typed.a2aRestCancelTask, ['inline', ref('Task')]);
  assert.deepEqual(typed.a2aRestCreateTaskPushNotificationConfig, [ref('TaskPushNotificationConfig'), ref('TaskPushNotificationConfig')]);
  assert.deepEqual(typed.a2aRestListTaskPushNotificationConfigs, [undefined, ref('ListTaskPushNotificationConfigsResponse')]);
  assert.deepEqual(typed.a2aRestGetExtendedAgentCard, [undefined, ref('AgentCard')]);
  assert.equal(document.components.schemas.A2AProtoJson, undefined);
});
