// Behaviour kept through the request-path optimisations found by the benchmark: the abort
// signal made on demand, remembered API keys, per-method route matching.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createApplication } from '../../../../src/compose/application.ts';
import { inProcessApp, type InProcessApp } from '../../../support/server.ts';
import { replyViolation } from '../../../../src/runtime/transports/http/writeReply.ts';
import type { OperationSpec } from '../../../../src/runtime/contract.ts';
import type { ValidatorTable } from '../../../../src/runtime/api.ts';
import type { Logger } from '../../../../src/runtime/logging/logger.ts';
import { extendContext, type RequestContext } from '../../../../src/runtime/context.ts';
import v8 from 'node:v8';

const seen: { early?: boolean; late?: boolean } = {};
/** Per kind, resolved when its handler has begun (and, early, taken the signal). */
const began: Record<string, () => void> = {};
/** Resolved by the test once the late request's client has gone. */
let clientWent: () => void = () => {};
const went = new Promise<void>((resolve) => (clientWent = resolve));
const contexts: RequestContext[] = [];
const threadBodies: object[] = [];
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: InProcessApp;
before(async () => {
  server = await inProcessApp({
    mock: false,
    app: async (deps) => {
      const app = await createApplication(deps);
      // GET /ok stands in for a slow handler: ?when=early watches the signal from the start,
      // ?when=late first asks for it after the client has gone
      app.handlers.health = async (request, ctx) => {
        const url = new URL(`http://x/?${new URLSearchParams(request.query as Record<string, string>)}`);
        if (url.searchParams.get('when') === 'warm') return { status: 200, body: { ok: true } };
        if (url.searchParams.get('when') === 'keep') {
          contexts.push(ctx);
          return { status: 200, body: { ok: true } };
        }
        if (url.searchParams.get('when') === 'early') {
          const signal = ctx.signal;
          const aborted = new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          began.early?.();
          await aborted;
          seen.early = signal.aborted;
        } else {
          began.late?.();
          await went;
          seen.late = ctx.signal.aborted;
        }
        return { status: 200, body: { ok: true } };
      };
      // the bodies GET /threads/{id} answered, to tell a view made again from one reused
      const getThread = app.handlers.getThread;
      app.handlers.getThread = async (request, ctx) => {
        const reply = await getThread(request, ctx);
        if (reply.status === 200 && 'body' in reply) threadBodies.push(reply.body as object);
        return reply;
      };
      return app;
    },
  });
});
after(() => server.close());

test('a handler sees the client go, whether it took the signal before or after', async () => {
  // the client goes once the handler has begun (a fixed delay before the abort let a loaded
  // machine abort the request before it reached the handler): the early one has taken the
  // signal then, the late one asks for it only after the client has gone
  assert.equal((await server.api('/ok?when=warm')).status, 200);
  for (const when of ['early', 'late']) {
    const controller = new AbortController();
    const begun = new Promise<void>((resolve) => (began[when] = resolve));
    const pending = server.fetch(`${server.url}/ok?when=${when}`, { signal: controller.signal }).catch(() => undefined);
    await begun;
    controller.abort();
    await pending;
    if (when === 'late') clientWent();
  }
  for (let i = 0; i < 50 && (seen.early === undefined || seen.late === undefined); i += 1) await delay(20);
  assert.deepEqual(seen, { early: true, late: true });
});

test('every request context has the same hidden class; extending one keeps its origin and its abort signal', async () => {
  for (let i = 0; i < 3; i += 1) assert.equal((await server.api('/ok?when=keep')).status, 200);
  // a context per request with a hidden class of its own (an object literal with a getter)
  // made the collector promote and sweep one per request: most of the request path's GC time
  v8.setFlagsFromString('--allow-natives-syntax');
  const sameShape = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
  v8.setFlagsFromString('--no-allow-natives-syntax');
  const [first, second, third] = contexts;
  assert.ok(sameShape(first, second) && sameShape(second, third), 'one hidden class for every request context');
  assert.equal(first.baseUrl, server.url, 'the origin the client used');
  const extended = extendContext(third, { requestId: 7 });
  assert.equal(extended.requestId, 7);
  assert.equal(extended.baseUrl, third.baseUrl, 'the origin, made on first read, is carried');
  assert.equal(extended.signal, third.signal, 'the same abort signal, so a client that goes aborts the extended call too');
});

test('a key once accepted keeps working; an unknown key is still refused after it', async () => {
  for (let i = 0; i < 3; i += 1) assert.equal((await server.api('/v2/deployments')).status, 200);
  const wrong = await server.fetch(`${server.url}/v2/deployments`, { headers: { 'x-api-key': `${server.key}x` } });
  assert.equal(wrong.status, 401);
  const otherTenant = await server.api('/v2/deployments', { headers: { 'x-tenant-id': randomUUID() } });
  assert.equal(otherTenant.status, 403);
});

test('a templated path with the wrong method → 405 listing the methods it has', async () => {
  const res = await server.api(`/v2/deployments/${randomUUID()}`, { method: 'PUT' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'DELETE, GET, PATCH');
  const found = await server.api(`/v2/deployments/${randomUUID()}`);
  assert.equal(found.status, 404);
});

test('a frozen reply body (a cached view) is checked against its schema once; a misfit is reported every time', () => {
  let checks = 0;
  const validate = Object.assign((body: unknown) => (checks += 1) > 0 && (body as { ok?: unknown }).ok === true, { errors: null });
  const operation = { operationId: 'probe', responses: { '200': { validator: 'probe200' } } } as unknown as OperationSpec;
  const validators = { probe200: validate } as unknown as ValidatorTable;
  const log = { debug() {} } as unknown as Logger;
  const view = Object.freeze({ ok: true });
  for (let i = 0; i < 3; i += 1) assert.equal(replyViolation(operation, { status: 200, body: view }, validators, log), null);
  assert.equal(checks, 1, 'the same frozen view is not validated again');
  const misfit = Object.freeze({ ok: false });
  for (let i = 0; i < 2; i += 1) assert.match(replyViolation(operation, { status: 200, body: misfit }, validators, log) ?? '', /probe 200/);
  const open = { ok: true };
  for (let i = 0; i < 2; i += 1) replyViolation(operation, { status: 200, body: open }, validators, log);
  assert.equal(checks, 5, 'a misfit and a body that may still change are validated on every reply');
});

test('a page made fresh around the same frozen views is checked once; a different page, a misfit or an open view every time', () => {
  let checks = 0;
  const validate = Object.assign(
    (body: unknown) => (checks += 1) > 0 && (body as { resources: { ok?: unknown }[] }).resources.every((view) => view.ok === true),
    { errors: null },
  );
  const operation = { operationId: 'page', responses: { '200': { validator: 'page200' } } } as unknown as OperationSpec;
  const validators = { page200: validate } as unknown as ValidatorTable;
  const log = { debug() {} } as unknown as Logger;
  const views = [Object.freeze({ ok: true }), Object.freeze({ ok: true })];
  const page = () => ({ status: 200, body: { resources: [...views], offset: 2 } });
  for (let i = 0; i < 3; i += 1) assert.equal(replyViolation(operation, page(), validators, log), null);
  assert.equal(checks, 1, 'the same page read again is not validated again');
  assert.equal(replyViolation(operation, { status: 200, body: { resources: [views[0]], offset: 1 } }, validators, log), null);
  assert.equal(replyViolation(operation, { status: 200, body: { resources: [...views], offset: 3 } }, validators, log), null);
  assert.equal(checks, 3, 'other views or another value are validated');
  const misfit = { resources: [views[0], Object.freeze({ ok: false })], offset: 2 };
  for (let i = 0; i < 2; i += 1)
    assert.match(replyViolation(operation, { status: 200, body: { ...misfit, resources: [...misfit.resources] } }, validators, log) ?? '', /page 200/);
  assert.equal(checks, 5, 'a page that did not fit is validated every time');
  for (let i = 0; i < 2; i += 1) replyViolation(operation, { status: 200, body: { resources: [{ ok: true }], offset: 1 } }, validators, log);
  assert.equal(checks, 7, 'a page around a view that may still change is validated every time');
});

test("an unchanged thread's view is made once and reused (its reply is checked once); any change makes a new one", async () => {
  const json = (res: Response) => res.json() as Promise<Record<string, any>>;
  const thread = await json(await server.api('/threads', { method: 'POST', json: { metadata: { n: 1 } } }));
  const read = async (query = '') => {
    const before = threadBodies.length;
    const body = await json(await server.api(`/threads/${thread.thread_id}${query}`));
    return { body, sent: threadBodies[before] };
  };
  const first = await read();
  const again = await read();
  assert.equal(again.sent, first.sent, 'the same view object for the same record');
  assert.ok(Object.isFrozen(first.sent));
  assert.deepEqual(again.body, first.body);
  // a change of the record: a new view with it
  await server.api(`/threads/${thread.thread_id}`, { method: 'PATCH', json: { metadata: { n: 2 } } });
  const patched = await read();
  assert.notEqual(patched.sent, first.sent);
  assert.equal(patched.body.metadata.n, 2);
  // a change of the state: the values of the run's end
  await server.api(`/threads/${thread.thread_id}/runs/wait`, {
    method: 'POST',
    json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'first' }] } },
  });
  const ran = await read();
  assert.deepEqual(
    ran.body.values.messages.map((m: { content: string }) => m.content),
    ['first', 'first'],
  );
  await server.api(`/threads/${thread.thread_id}/runs/wait`, {
    method: 'POST',
    json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'second' }] } },
  });
  const ranAgain = await read();
  assert.equal(ranAgain.body.values.messages.length, 4);
  // the ttl variant is its own view
  const withTtl = await read('?include=ttl');
  assert.notEqual(withTtl.sent, ranAgain.sent);
  assert.deepEqual((await read()).body, ranAgain.body);
});
