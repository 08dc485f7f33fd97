// A tenant's OAuth providers are bounded (AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT): before,
// only the request rate bounded how many a tenant registered. With a bound of 2, providers sent
// at once leave 2 and the rest 403 naming the quota and its setting, storing nothing; another
// tenant's count is its own; deleting one makes room.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { twoTenants, type TwoTenants } from '../../support/twoTenants.ts';

let tenants: TwoTenants;
before(async () => (tenants = await twoTenants('control-plane', { AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT: '2' })));
after(() => tenants.app.close());

const provider = (id: string) => ({
  provider_id: id,
  name: id,
  client_id: 'client',
  client_secret: 'secret',
  auth_url: 'https://idp.example/authorize',
  token_url: 'https://idp.example/token',
});
const held = async (key: string) => (await (await tenants.send(key, 'GET', '/v2/auth/providers')).json()) as { provider_id: string }[];

describe('OAuth providers of a tenant', () => {
  it('one over AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT is 403 naming it and stores nothing, however many are sent at once', async () => {
    const { keyA, keyB, send } = tenants;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => send(keyA, 'POST', '/v2/auth/providers', provider(`p-${i}`))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 200, 403, 403, 403, 403]);
    const refused = (await answers.find((r) => r.status === 403)!.json()) as { detail: string };
    assert.match(refused.detail, /Quota reached: this tenant holds 2 OAuth providers.*AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT/);
    const providers = await held(keyA);
    assert.equal(providers.length, 2);
    // a refused provider's id is free: nothing of it was stored
    const stored = new Set(providers.map((p) => p.provider_id));
    const refusedId = Array.from({ length: 6 }, (_, i) => `p-${i}`).find((id) => !stored.has(id))!;
    assert.equal((await send(keyA, 'GET', `/v2/auth/providers/${refusedId}`)).status, 404);
    // B's count is its own
    assert.equal((await send(keyB, 'POST', '/v2/auth/providers', provider('p-b'))).status, 200);
    // one deleted makes room
    assert.equal((await send(keyA, 'DELETE', `/v2/auth/providers/${providers[0]!.provider_id}`)).status, 200);
    assert.equal((await send(keyA, 'POST', '/v2/auth/providers', provider(refusedId))).status, 200);
    assert.equal((await held(keyA)).length, 2);
  });
});
