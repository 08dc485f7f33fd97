// A deployment's revisions are bounded (AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT, issue 83): before,
// each PATCH that changed a revision setting and each redeploy stored one more revision, none
// ever deleted but with the deployment, so a tenant looping on PATCH filled the store within its
// request rate. With a bound of 3, PATCHes sent at once leave 3 revisions and the rest 403 naming
// the quota and its setting, storing nothing; a redeploy past the bound is refused the same way;
// another deployment's count is its own.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { twoTenants, type TwoTenants } from '../../support/twoTenants.ts';
import { dockerBody } from '../../control-plane/support.ts';

let tenants: TwoTenants;
before(async () => (tenants = await twoTenants('control-plane', { AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT: '3' })));
after(() => tenants.app.close());

interface Revision {
  id: string;
  status: string;
}

async function revisions(id: string): Promise<Revision[]> {
  return ((await (await tenants.send(tenants.keyA, 'GET', `/v2/deployments/${id}/revisions?limit=100`)).json()) as { resources: Revision[] }).resources;
}

async function created(name: string): Promise<{ id: string; latest_revision_id: string }> {
  const answer = await tenants.send(tenants.keyA, 'POST', '/v2/deployments', dockerBody(name));
  assert.equal(answer.status, 201, await answer.clone().text());
  return (await answer.json()) as { id: string; latest_revision_id: string };
}

async function deployed(id: string, revisionId: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const revision = (await (await tenants.send(tenants.keyA, 'GET', `/v2/deployments/${id}/revisions/${revisionId}`)).json()) as Revision;
    if (revision.status === 'DEPLOYED') return;
    assert.ok(Date.now() < deadline, `revision ${revisionId} still ${revision.status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const newSecret = (i: number) => ({ secrets: [{ name: 'TOKEN', value: `v-${i}` }] });

describe('revisions of a deployment', () => {
  it('one over AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT, by PATCHes at once or a redeploy, is 403 naming it and stores nothing', async () => {
    const { keyA, send } = tenants;
    const deployment = await created('looped');
    await deployed(deployment.id, deployment.latest_revision_id);

    // the first revision counts: two more fit in 3
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => send(keyA, 'PATCH', `/v2/deployments/${deployment.id}`, newSecret(i))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 200, 403, 403, 403]);
    const refused = (await answers.find((r) => r.status === 403)!.json()) as { detail: string };
    assert.match(refused.detail, /Quota reached: this tenant holds 3 revisions of this deployment.*AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT/);
    const held = await revisions(deployment.id);
    assert.equal(held.length, 3);

    // a redeploy makes a revision too: refused, nothing stored, the latest revision unchanged
    const latest = ((await (await send(keyA, 'GET', `/v2/deployments/${deployment.id}`)).json()) as { latest_revision_id: string }).latest_revision_id;
    const redeploy = await send(keyA, 'POST', `/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}/redeploy`);
    assert.equal(redeploy.status, 403, await redeploy.clone().text());
    assert.match(((await redeploy.json()) as { detail: string }).detail, /AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT/);
    assert.equal((await revisions(deployment.id)).length, 3);
    assert.equal(((await (await send(keyA, 'GET', `/v2/deployments/${deployment.id}`)).json()) as { latest_revision_id: string }).latest_revision_id, latest);

    // another deployment's revisions are its own
    const other = await created('other');
    await deployed(other.id, other.latest_revision_id);
    assert.equal((await send(keyA, 'PATCH', `/v2/deployments/${other.id}`, newSecret(9))).status, 200);
    assert.equal((await send(keyA, 'POST', `/v2/deployments/${other.id}/revisions/${other.latest_revision_id}/redeploy`)).status, 200);
    assert.equal((await revisions(other.id)).length, 3);
  });
});
