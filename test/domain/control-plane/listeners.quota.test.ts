// A tenant's listeners are bounded (AGENTPLANE_MAX_LISTENERS_PER_TENANT): before, only the
// request rate bounded how many a tenant registered, each a record the control plane keeps, a
// token and a heartbeat it serves. With a bound of 2, registrations sent at once leave 2 and the
// rest 403 naming the quota and its setting, storing nothing; another tenant's count is its own;
// deleting one makes room.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { twoTenants, type TwoTenants } from '../../support/twoTenants.ts';

let tenants: TwoTenants;
before(async () => (tenants = await twoTenants('control-plane', { AGENTPLANE_MAX_LISTENERS_PER_TENANT: '2' })));
after(() => tenants.app.close());

const listener = (computeId: string) => ({ compute_type: 'simulated', compute_id: computeId, compute_config: {} });
const held = async (key: string) => ((await (await tenants.send(key, 'GET', '/v2/listeners?limit=100')).json()) as { resources: { id: string }[] }).resources;

describe('listeners of a tenant', () => {
  it('one over AGENTPLANE_MAX_LISTENERS_PER_TENANT is 403 naming it and stores nothing, however many are sent at once', async () => {
    const { keyA, keyB, send } = tenants;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => send(keyA, 'POST', '/v2/listeners', listener(`cluster-${i}`))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 403, 403, 403, 403]);
    const refused = (await answers.find((r) => r.status === 403)!.json()) as { detail: string };
    assert.match(refused.detail, /Quota reached: this tenant holds 2 listeners.*AGENTPLANE_MAX_LISTENERS_PER_TENANT/);
    const listeners = await held(keyA);
    assert.equal(listeners.length, 2);
    // B's count is its own
    assert.equal((await send(keyB, 'POST', '/v2/listeners', listener('b-cluster'))).status, 201);
    // one deleted makes room
    assert.equal((await send(keyA, 'DELETE', `/v2/listeners/${listeners[0]!.id}`)).status, 204);
    assert.equal((await send(keyA, 'POST', '/v2/listeners', listener('cluster-again'))).status, 201);
    assert.equal((await held(keyA)).length, 2);
  });
});
