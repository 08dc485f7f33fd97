// Serving never builds the OpenAPI documents' objects: a start binds each operation from the
// generated tables and the documents' security schemes alone (building the two documents cost
// every start ~20 ms), and so do the requests after it; nor does it load their modules (~30 ms:
// server.startLoads.e2e checks that on the shipped entry point). Only the mock, the console and the
// tests read a whole document; nor the A2A OpenRPC documents (~6 ms and ~170 fresh pages a start),
// which only the mock reads. Reads are counted on the shared apiDocuments, as the server's
// pipeline and reply serializers see them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { apiDocuments, loadApiDocuments, rpcDocument, rpcDocumentV1 } from '../../src/runtime/api.ts';
import { inProcessApp, type InProcessApp } from '../support/server.ts';

let reads = 0;
const restore: (() => void)[] = [];
let server: InProcessApp;

before(async () => {
  for (const doc of apiDocuments) {
    const own = Object.getOwnPropertyDescriptor(doc, 'document')!;
    Object.defineProperty(doc, 'document', {
      configurable: true,
      enumerable: true,
      get() {
        reads += 1;
        return own.get ? own.get.call(doc) : own.value;
      },
    });
    restore.push(() => Object.defineProperty(doc, 'document', own));
  }
});
after(async () => {
  await server?.close();
  for (const undo of restore) undo();
});

test('a real server starts and answers both areas without building either OpenAPI document', async () => {
  // counted from here: the runner may run other files' tests in this process before this one
  const readsBefore = reads;
  server = await inProcessApp({ mock: false });
  assert.equal((await server.api('/ok')).status, 200);
  assert.equal((await server.api('/v2/deployments')).status, 200);
  const created = await server.api('/threads', { method: 'POST', json: {} });
  assert.equal(created.status, 200);
  const threadId = ((await created.json()) as { thread_id: string }).thread_id;
  assert.equal((await server.api(`/threads/${threadId}`)).status, 200);
  // a refused request (its error shape), and an operation that verifies its own credential
  assert.equal((await server.api(`/threads/${randomUUID()}`)).status, 404);
  assert.equal((await server.api('/threads', { method: 'POST', json: { metadata: 'not an object' } })).status, 422);
  const listener = await server.api(`/v2/listeners/${randomUUID()}/heartbeat`, { method: 'POST', json: {} });
  assert.equal(listener.status, 401, 'a listener route still requires the listener token its security scheme names');
  assert.match(listener.headers.get('www-authenticate') ?? '', /X-Listener-Token/i);
  assert.equal(reads - readsBefore, 0, 'no request, nor the start, read a whole OpenAPI document');
  // the document itself is still there for whoever asks, once its module is loaded
  await loadApiDocuments();
  assert.equal(apiDocuments.find((d) => d.key === 'agent-server')!.document.openapi, '3.1.0');
  assert.equal(reads - readsBefore, 1);
});

test('the A2A OpenRPC documents are built when first read, not when the API module loads, and once', () => {
  for (const doc of [rpcDocument, rpcDocumentV1]) {
    assert.equal(typeof Object.getOwnPropertyDescriptor(doc, 'document')?.get, 'function', `${doc.key}: a getter, not a document built at load`);
    const first = doc.document;
    assert.equal(typeof first.openrpc, 'string', `${doc.key}: the OpenRPC document`);
    assert.equal(doc.document, first, `${doc.key}: built once`);
  }
});

test("an OpenAPI document's security schemes are the document's own, with no document loaded for them", async () => {
  await loadApiDocuments();
  for (const doc of apiDocuments) assert.deepEqual(doc.securitySchemes, doc.document.components.securitySchemes, doc.key);
});
