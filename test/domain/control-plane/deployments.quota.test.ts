// A tenant's deployments and their replicas are bounded (issue 83: one tenant created ~4,700
// deployments in a 25-s flood, each a server on the operator's machines, all 201): with a bound
// of 3, creations sent at once leave 3 stored and the rest 403 naming the quota and its setting,
// storing nothing; another tenant's count is its own; a deleted deployment makes room again.
// The replicas all of a tenant's deployments ask for are bounded the same way, at create and by
// a PATCH that scales one up; a scale-down and a removal give their replicas back.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { twoTenants, type TwoTenants } from '../../support/twoTenants.ts';
import { dockerBody } from '../../control-plane/support.ts';

let tenants: TwoTenants;
before(async () => (tenants = await twoTenants('control-plane', { AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT: '3' })));
after(() => tenants.app.close());

const names = async (key: string, on: TwoTenants = tenants) =>
  ((await (await on.send(key, 'GET', '/v2/deployments?limit=100')).json()) as { resources: { name: string; id: string }[] }).resources;

describe('deployments of a tenant', () => {
  it('one over AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT is 403 naming it and stores nothing, however many are sent at once', async () => {
    const { keyA, keyB, send } = tenants;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(keyA, 'POST', '/v2/deployments', dockerBody(`flood-${i}`))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 201, 403, 403, 403, 403, 403, 403, 403]);
    const refused = (await answers.find((r) => r.status === 403)!.json()) as { detail: string };
    assert.match(refused.detail, /Quota reached: this tenant holds 3 deployments.*AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT/);
    const held = await names(keyA);
    assert.equal(held.length, 3);
    // each refused name is free: nothing of it was stored
    const stored = new Set(held.map((d) => d.name));
    const refusedName = Array.from({ length: 10 }, (_, i) => `flood-${i}`).find((n) => !stored.has(n))!;
    assert.equal((await send(keyA, 'POST', '/v2/deployments', dockerBody(refusedName))).status, 403);
    assert.equal((await names(keyA)).length, 3);
    // B's count is its own
    assert.equal((await send(keyB, 'POST', '/v2/deployments', dockerBody('b-1'))).status, 201);
    // a deployment deleted makes room again, once it is gone
    assert.equal((await send(keyA, 'DELETE', `/v2/deployments/${held[0]!.id}`)).status, 204);
    const deadline = Date.now() + 10_000;
    while ((await names(keyA)).length === 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await send(keyA, 'POST', '/v2/deployments', dockerBody(refusedName))).status, 201);
  });
});

describe('replicas of a tenant', () => {
  let app: TwoTenants;
  before(async () => (app = await twoTenants('control-plane', { AGENTPLANE_MAX_REPLICAS_PER_TENANT: '5' })));
  after(() => app.app.close());

  const scaled = (name: string, spec: Record<string, number>) => {
    const body = dockerBody(name);
    return { ...body, source_config: { ...body.source_config, resource_spec: spec } };
  };

  it('over AGENTPLANE_MAX_REPLICAS_PER_TENANT together, by a create at once or a PATCH, is 403 naming it and changes nothing', async () => {
    const { keyA, keyB, send } = app;
    // five at once asking for 2 each: two fit in 5
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => send(keyA, 'POST', '/v2/deployments', scaled(`wide-${i}`, { max_scale: 2 }))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [201, 201, 403, 403, 403]);
    assert.match(((await answers.find((r) => r.status === 403)!.json()) as { detail: string }).detail, /Quota reached.*AGENTPLANE_MAX_REPLICAS_PER_TENANT/);
    const held = (await names(keyA, app)).map((d) => d.id);
    assert.equal(held.length, 2);
    // the queue's and orchestrator's scales count as much as the server's
    assert.equal((await send(keyA, 'POST', '/v2/deployments', scaled('queue', { queue_max_scale: 2 }))).status, 403);
    assert.equal((await send(keyA, 'POST', '/v2/deployments', scaled('one', {}))).status, 201);
    // a PATCH that scales one up past the bound: 403, and no revision made
    const id = held[0]!;
    const revisions = async () => ((await (await send(keyA, 'GET', `/v2/deployments/${id}/revisions`)).json()) as { resources: unknown[] }).resources.length;
    const before = await revisions();
    const patched = await send(keyA, 'PATCH', `/v2/deployments/${id}`, { source_config: { resource_spec: { max_scale: 3 } } });
    assert.equal(patched.status, 403, await patched.clone().text());
    assert.match(((await patched.json()) as { detail: string }).detail, /AGENTPLANE_MAX_REPLICAS_PER_TENANT/);
    assert.equal(await revisions(), before);
    // scaling down is always room, and the room it makes is counted: 1 + 2 + 1 of 5 held, one more of 1 fits, then none
    assert.equal((await send(keyA, 'PATCH', `/v2/deployments/${id}`, { source_config: { resource_spec: { max_scale: 1 } } })).status, 200);
    assert.equal((await send(keyA, 'POST', '/v2/deployments', scaled('after-down', { max_scale: 1 }))).status, 201);
    assert.equal((await send(keyA, 'POST', '/v2/deployments', scaled('past', { max_scale: 1 }))).status, 403);
    // a deployment removed gives its replicas back, once it is gone
    assert.equal((await send(keyA, 'DELETE', `/v2/deployments/${held[1]!}`)).status, 204);
    const deadline = Date.now() + 10_000;
    while ((await names(keyA, app)).some((d) => d.id === held[1]) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal((await send(keyA, 'POST', '/v2/deployments', scaled('back', { max_scale: 2 }))).status, 201);
    assert.equal((await send(keyA, 'POST', '/v2/deployments', scaled('past', { max_scale: 1 }))).status, 403);
    // B's replicas are its own
    assert.equal((await send(keyB, 'POST', '/v2/deployments', scaled('b', { max_scale: 5 }))).status, 201);
  });
});
