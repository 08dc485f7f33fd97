// An area's handlers loaded at its first request (compose/areas/lazyHandlers.ts): nothing loads
// before a call, the first calls share one load and are answered by the loaded handlers, and a
// load missing an operation's handler fails the call naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyHandlers } from '../../../src/compose/areas/lazyHandlers.ts';
import type { OperationHandler, OperationRequest } from '../../../src/runtime/handler.ts';
import type { RequestContext } from '../../../src/runtime/context.ts';

type Handlers = { getThing: OperationHandler; listThings: OperationHandler };
const request = { path: { id: 'a' }, query: {}, headers: {}, body: undefined } as OperationRequest;
const ctx = {} as RequestContext;

test('loads the handlers at the first call, once, and answers by them', async () => {
  let loads = 0;
  const { handlers } = lazyHandlers<Handlers>(['getThing', 'listThings'], async () => {
    loads += 1;
    return {
      getThing: async (req) => ({ status: 200, body: { id: (req.path as { id: string }).id } }),
      listThings: async () => ({ status: 200, body: [] }),
    };
  });
  assert.equal(loads, 0);
  const [one, many] = await Promise.all([handlers.getThing(request, ctx), handlers.listThings(request, ctx)]);
  assert.deepEqual(one, { status: 200, body: { id: 'a' } });
  assert.deepEqual(many, { status: 200, body: [] });
  assert.deepEqual(await handlers.getThing(request, ctx), { status: 200, body: { id: 'a' } });
  assert.equal(loads, 1);
});

test('a load without an operation’s handler fails the calls, naming it', async () => {
  const { handlers } = lazyHandlers<Handlers>(['getThing', 'listThings'], async () => ({ getThing: async () => ({ status: 204 }) }) as unknown as Handlers);
  await assert.rejects(handlers.getThing(request, ctx), /no handler for operationId\(s\): listThings/);
});
