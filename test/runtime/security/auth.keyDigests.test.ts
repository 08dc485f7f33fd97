// A server given its tenant's keys by their digests (AGENTPLANE_API_KEY_DIGESTS, what the control
// plane gives a server it deploys, issue 83) answers those keys only, as that tenant, with
// agent-server auth on whatever its project file says; so the tenant's quotas bind there. It
// makes no key of its own, and an entry that is no digest stops the start naming the setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';
import { KeyRing, keyDigest, parseKeyDigests } from '../../../src/runtime/security/auth.ts';

test("a deployed server answers its tenant's keys only, and the tenant's quotas bind there", async () => {
  const tenant = randomUUID();
  const key = `key-${randomUUID()}`;
  const app = await areaApp('agent-server', {
    dataDir: null,
    // the project file turns agent-server auth off: the digests win
    project: { ...testProject, auth: { agent_server: false } },
    env: { AGENTPLANE_API_KEY_DIGESTS: `${keyDigest(key)}:${tenant}`, AGENTPLANE_MAX_THREADS_PER_TENANT: '2' },
  });
  try {
    const as = (headers: Record<string, string>) =>
      app.fetch('/threads', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
    assert.equal((await as({})).status, 401, 'served without a key');
    assert.equal((await as({ 'x-api-key': keyDigest(key) })).status, 401, 'the digest itself is no key');
    assert.equal((await as({ 'x-api-key': 'another' })).status, 401);
    assert.equal((await as({ 'x-api-key': key })).status, 200);
    assert.equal((await as({ authorization: `Bearer ${key}` })).status, 200);
    const over = await as({ 'x-api-key': key });
    assert.equal(over.status, 403);
    assert.match(((await over.json()) as { detail: string }).detail, /AGENTPLANE_MAX_THREADS_PER_TENANT/);
    assert.equal((await app.fetch('/ok')).status, 200, 'the health check needs no key');
  } finally {
    await app.close();
  }
});

test('an entry that is no digest and tenant is refused naming the setting', () => {
  assert.throws(() => parseKeyDigests(`plain-key:${randomUUID()}`), /AGENTPLANE_API_KEY_DIGESTS/);
  assert.throws(() => parseKeyDigests(`${'a'.repeat(64)}:not-a-tenant`), /AGENTPLANE_API_KEY_DIGESTS/);
  assert.deepEqual(parseKeyDigests(`${'A'.repeat(64)}:${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`), [
    { digest: 'a'.repeat(64), tenants: [`${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`] },
  ]);
});

test("the control plane's key ring gives a tenant's digests (any case), no other tenant's", () => {
  const [a, b] = [randomUUID(), randomUUID()];
  const ring = new KeyRing([
    { key: 'key-a', tenants: [a.toUpperCase()] },
    { key: 'key-ab', tenants: [a, b] },
    { key: 'key-b', tenants: [b] },
  ]);
  assert.deepEqual(ring.digestsOf(a).sort(), [keyDigest('key-a'), keyDigest('key-ab')].sort());
  assert.deepEqual(ring.digestsOf(b.toUpperCase()).sort(), [keyDigest('key-ab'), keyDigest('key-b')].sort());
  // a ring of digests alone answers the keys as the control plane's does
  const deployed = new KeyRing(
    [],
    parseKeyDigests(
      ring
        .digestsOf(a)
        .map((d) => `${d}:${a}`)
        .join(','),
    ),
  );
  assert.deepEqual(deployed.authenticate({ 'x-api-key': 'key-ab' }, true), { tenantId: a, authenticated: true });
  assert.equal((deployed.authenticate({ 'x-api-key': 'key-b' }, true) as { status: number }).status, 401);
});
