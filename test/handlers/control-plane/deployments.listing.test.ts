// Listing deployments: newest first, stable paging (also while deployments change),
// and every filter.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { create, dockerBody, githubBody, json } from '../../control-plane/support.ts';

describe('control plane: listing deployments', () => {
  let server: InProcessApp;
  const ids: string[] = [];
  before(async () => {
    server = await areaApp('control-plane', { env: { AGENTPLANE_PHASE_MS: '60000' } });
    // a deployment names a listener of its tenant
    const listener = await json(
      await server.api('/v2/listeners', {
        method: 'POST',
        json: { compute_type: 'k8s', compute_id: 'listing-cluster', compute_config: { k8s_namespaces: ['agents'] } },
      }),
      201,
    );
    const bodies = [
      githubBody('alpha-dev'),
      { ...githubBody('alpha-prod'), source_config: { ...githubBody('').source_config, deployment_type: 'prod' } },
      { ...dockerBody('beta-listener'), source_config: { listener_id: listener.id, listener_config: { k8s_namespace: 'agents' } } },
      { ...dockerBody('beta-pinned'), image_version: '0.4.21' },
      dockerBody('gamma'),
    ];
    for (const body of bodies) ids.unshift((await create(server.api, body)).id);
  });
  after(() => server.close());

  const names = async (query: string) => (await json(await server.api(`/v2/deployments${query}`), 200)).resources.map((d: any) => d.name);

  it('pages newest first; the returned offset is the next page', async () => {
    const first = await json(await server.api('/v2/deployments?limit=2'), 200);
    assert.deepEqual(
      first.resources.map((d: any) => d.id),
      ids.slice(0, 2),
    );
    assert.equal(first.offset, 2);
    const second = await json(await server.api(`/v2/deployments?limit=2&offset=${first.offset}`), 200);
    assert.deepEqual(
      second.resources.map((d: any) => d.id),
      ids.slice(2, 4),
    );
    const last = await json(await server.api(`/v2/deployments?limit=2&offset=${second.offset}`), 200);
    assert.deepEqual(
      last.resources.map((d: any) => d.id),
      ids.slice(4),
    );
    assert.equal(last.offset, 5);
    assert.deepEqual(await json(await server.api('/v2/deployments?offset=20'), 200), { resources: [], offset: 20 });
  });

  it('keeps the order when older deployments are updated', async () => {
    await json(await server.api(`/v2/deployments/${ids[4]}`, { method: 'PATCH', json: { source_config: { install_command: 'npm ci' } } }), 200);
    await json(await server.api(`/v2/deployments/${ids[3]}`, { method: 'PATCH', json: { source_revision_config: { repo_ref: 'next' } } }), 200);
    const all = await json(await server.api('/v2/deployments'), 200);
    assert.deepEqual(
      all.resources.map((d: any) => d.id),
      ids,
    );
  });

  it('filters by name, type, listener, image version, ids, tags and status', async () => {
    assert.deepEqual(await names('?name_contains=ALPHA'), ['alpha-prod', 'alpha-dev']);
    assert.deepEqual(await names('?deployment_type=prod'), ['alpha-prod']);
    assert.deepEqual(await names('?remote_reconciled=true'), ['beta-listener']);
    assert.equal((await names('?remote_reconciled=false')).length, 4);
    assert.deepEqual(await names('?image_version=0.4.21'), ['beta-pinned']);
    assert.deepEqual(await names(`?deployment_ids=${ids[4]},${ids[0]},${ids[2]}&limit=2`), ['gamma', 'beta-listener']);
    assert.deepEqual(await names(`?deployment_ids=${ids[4]},${ids[0]},${ids[2]}&offset=2`), ['alpha-dev']);
    assert.deepEqual(await names('?tag_value_ids=9c1e4b2a-7d3f-4e8a-b5c6-0d1e2f3a4b5c'), []);
    assert.equal((await names('?status=AWAITING_DATABASE')).length, 5);
    assert.deepEqual(await names('?status=NO_SUCH_STATUS'), []);
    assert.deepEqual(await names('?name_contains=beta&image_version=0.4.21'), ['beta-pinned']);
  });

  it('rejects malformed list parameters with 422', async () => {
    for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?deployment_ids=nope', '?deployment_type=serverless', '?tag_value_ids=a,b']) {
      const reply = await json(await server.api(`/v2/deployments${query}`), 422);
      assert.equal(reply.detail[0].loc[0], 'query');
    }
    await json(await server.api(`/v2/deployments/${ids[0]}/revisions?status=BOGUS`), 422);
  });
});
