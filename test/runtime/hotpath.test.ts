// Behaviour kept through the request-path optimisations found by the benchmark: the abort
// signal made on demand, remembered API keys, per-method route matching.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createApplication } from '../../src/compose/application.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const seen: { early?: boolean; late?: boolean } = {};
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: TestServer;
before(async () => {
  server = await startTestServer({
    mock: false,
    app: async (deps) => {
      const app = await createApplication(deps);
      // GET /ok stands in for a slow handler: ?when=early watches the signal from the start,
      // ?when=late first asks for it after the client has gone
      app.handlers.health = async (request, ctx) => {
        const url = new URL(`http://x/?${new URLSearchParams(request.query as Record<string, string>)}`);
        if (url.searchParams.get('when') === 'early') {
          const signal = ctx.signal;
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          seen.early = signal.aborted;
        } else {
          await delay(300);
          seen.late = ctx.signal.aborted;
        }
        return { status: 200, body: { ok: true } };
      };
      return app;
    },
  });
});
after(() => server.close());

test('a handler sees the client go, whether it took the signal before or after', async () => {
  for (const when of ['early', 'late']) {
    const controller = new AbortController();
    const pending = fetch(`${server.url}/ok?when=${when}`, { signal: controller.signal }).catch(() => undefined);
    await delay(100);
    controller.abort();
    await pending;
  }
  for (let i = 0; i < 50 && (seen.early === undefined || seen.late === undefined); i += 1) await delay(20);
  assert.deepEqual(seen, { early: true, late: true });
});

test('a key once accepted keeps working; an unknown key is still refused after it', async () => {
  for (let i = 0; i < 3; i += 1) assert.equal((await server.api('/v2/deployments')).status, 200);
  const wrong = await fetch(`${server.url}/v2/deployments`, { headers: { 'x-api-key': `${server.key}x` } });
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
