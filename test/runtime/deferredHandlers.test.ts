// The handlers the server listens on while its application is being made
// (src/runtime/deferredHandlers.ts): every operation, the health check too, waits for the
// application's handler, and after the arrival each is the application's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deferredHandlers, StartFailed } from '../../src/runtime/deferredHandlers.ts';
import type { HandlerRegistry } from '../../src/runtime/handler.ts';

const request = {} as never;
const ctx = {} as never;
const reply = (body: unknown) => ({ status: 200, body });

test('before the application every operation waits, the health check too, and is answered by the application’s handler', async () => {
  const deferred = deferredHandlers(['health', 'searchAssistants']);
  const answered: string[] = [];
  const health = deferred.handlers.health(request, ctx).then((r) => (answered.push('health'), r));
  const search = deferred.handlers.searchAssistants(request, ctx).then((r) => (answered.push('search'), r));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.deepEqual(answered, [], 'no answer before the application has arrived');
  const app: HandlerRegistry = { health: async () => reply('app ok'), searchAssistants: async () => reply(['echo']) };
  deferred.arrive(app);
  assert.deepEqual(await health, reply('app ok'));
  assert.deepEqual(await search, reply(['echo']));
  // from now on the application's own handlers answer at once
  assert.deepEqual(await deferred.handlers.health(request, ctx), reply('app ok'));
  assert.deepEqual(await deferred.handlers.searchAssistants(request, ctx), reply(['echo']));
});

test('an application that could not be made fails the requests waiting for it', async () => {
  const deferred = deferredHandlers(['searchAssistants']);
  const waiting = deferred.handlers.searchAssistants(request, ctx);
  deferred.fail(new Error('graph did not load'));
  await assert.rejects(waiting, (err) => err instanceof StartFailed && /could not start: graph did not load/.test(err.message));
});
