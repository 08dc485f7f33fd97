// The handlers the server listens on while its application is being made
// (src/runtime/deferredHandlers.ts): the early ones answer at once, every other operation
// waits for the application's handler, and after the arrival each is the application's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deferredHandlers } from '../../src/runtime/deferredHandlers.ts';
import type { HandlerRegistry } from '../../src/runtime/handler.ts';

const request = {} as never;
const ctx = {} as never;
const reply = (body: unknown) => ({ status: 200, body });

test('before the application: an early operation answers at once, another waits and is answered by the application’s handler', async () => {
  const deferred = deferredHandlers(['health', 'searchAssistants'], { health: async () => reply('early ok') });
  assert.deepEqual(await deferred.handlers.health(request, ctx), reply('early ok'));
  let answered = false;
  const waiting = deferred.handlers.searchAssistants(request, ctx).then((r) => ((answered = true), r));
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(answered, false, 'no answer before the application has arrived');
  const app: HandlerRegistry = { health: async () => reply('app ok'), searchAssistants: async () => reply(['echo']) };
  deferred.arrive(app);
  assert.deepEqual(await waiting, reply(['echo']));
  // from now on the application's own handlers answer, the early one included
  assert.deepEqual(await deferred.handlers.health(request, ctx), reply('app ok'));
  assert.deepEqual(await deferred.handlers.searchAssistants(request, ctx), reply(['echo']));
});

test('an application that could not be made fails the requests waiting for it', async () => {
  const deferred = deferredHandlers(['searchAssistants']);
  const waiting = deferred.handlers.searchAssistants(request, ctx);
  deferred.fail(new Error('graph did not load'));
  await assert.rejects(waiting, /graph did not load/);
});
