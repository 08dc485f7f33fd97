// What every ControlPlaneRepository answers, whichever backend keeps the records: the embedded
// store's collections (test/adapters/embedded/collectionControlPlane.test.ts) and PostgreSQL's
// tables with the deployments list in SQL (test/adapters/postgres/pgDeployments.test.ts) run
// this one body.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { putDeployment, putRevision } from '../../src/domain/control-plane/records.ts';
import type {
  ControlPlaneRepository,
  DeploymentRecord,
  ListenerRecord,
  ProviderRecord,
  RevisionRecord,
} from '../../src/domain/ports/controlPlaneRepository.ts';

const A = 'tenant-a';
const B = 'tenant-b';
let clock = Date.parse('2026-01-01T00:00:00.000Z');
const at = () => new Date((clock += 1000)).toISOString();

function deployment(id: string, fields: Partial<DeploymentRecord> & { listener_id?: string | null; deployment_type?: string } = {}): DeploymentRecord {
  const { listener_id = null, deployment_type = 'dev', ...rest } = fields;
  const tenant = rest.tenant_id ?? A;
  const name = rest.name ?? `name-${id}`;
  const now = at();
  return {
    id,
    tenant_id: tenant,
    name,
    tenant_name: `${tenant}/${name}`,
    status: 'READY',
    image_version: '1',
    source: 'github',
    source_config: { listener_id, deployment_type },
    latest_revision_id: null,
    active_revision_id: null,
    secrets: [],
    created_at: now,
    updated_at: now,
    ...rest,
  } as unknown as DeploymentRecord;
}

function revision(id: string, deploymentId: string, status: RevisionRecord['status'] = 'DEPLOYED'): RevisionRecord {
  const now = at();
  return { id, deployment_id: deploymentId, tenant_id: A, status, created_at: now, updated_at: now } as unknown as RevisionRecord;
}

const ids = (records: { id: string }[]) => records.map((r) => r.id);

export function controlPlaneRepositoryContract(open: () => Promise<ControlPlaneRepository>): void {
  it("reads deployments by id, as a tenant's (another's is missing), by status, name and listener", async () => {
    const repo = await open();
    await repo.deployments.put(deployment('d1', { name: 'one' }));
    await repo.deployments.put(deployment('d2', { status: 'AWAITING_DELETE', listener_id: 'l1' }));
    await repo.deployments.put(deployment('d3', { tenant_id: B, listener_id: 'l1' }));
    assert.equal((await repo.deployments.get('d3'))?.tenant_id, B);
    assert.equal(await repo.deployments.ofTenant(A, 'd3'), undefined);
    assert.equal((await repo.deployments.ofTenant(B, 'd3'))?.id, 'd3');
    assert.deepEqual(ids(await repo.deployments.all()), ['d1', 'd2', 'd3']);
    assert.deepEqual(ids(await repo.deployments.withStatus('READY')), ['d1', 'd3']);
    assert.equal(await repo.deployments.countWithStatus('AWAITING_DELETE'), 1);
    assert.equal(await repo.deployments.nameTaken(`${A}/one`), true);
    assert.equal(await repo.deployments.nameTaken(`${B}/one`), false);
    assert.deepEqual(ids(await repo.deployments.ofListener(A, 'l1')), ['d2']);
  });

  it("lists a tenant's deployments newest first, by every filter, a page at a time", async () => {
    const repo = await open();
    await repo.deployments.put(deployment('d1', { name: 'Alpha', image_version: '1' }));
    await repo.deployments.put(deployment('d2', { name: 'beta', status: 'UNUSED', listener_id: 'l1' }));
    await repo.deployments.put(deployment('d3', { name: 'alphabet', deployment_type: 'prod', image_version: '2' }));
    await repo.deployments.put(deployment('d4', { tenant_id: B, name: 'alpha' }));
    const all = { offset: 0, limit: 10 };
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, {}, all)), ['d3', 'd2', 'd1']);
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, {}, { offset: 1, limit: 1 })), ['d2']);
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, { name_contains: 'ALPHA' }, all)), ['d3', 'd1']);
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, { status: 'UNUSED' }, all)), ['d2']);
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, { remote_reconciled: true }, all)), ['d2']);
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, { remote_reconciled: false }, all)), ['d3', 'd1']);
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, { image_version: '2' }, all)), ['d3']);
    assert.deepEqual(ids(await repo.deployments.newestFirst(A, { deployment_type: 'prod' }, all)), ['d3']);
  });

  it("writes a deployment with its revisions at once, reads a deployment's revisions in order and a page newest first", async () => {
    const repo = await open();
    const d1 = deployment('d1');
    await repo.write([putDeployment(d1), putRevision(revision('r1', 'd1', 'BUILD_FAILED')), putRevision(revision('r2', 'd1', 'DEPLOYED'))]);
    await repo.write([putRevision(revision('r3', 'd1', 'BUILDING')), putDeployment({ ...d1, latest_revision_id: 'r3' })]);
    assert.equal((await repo.deployments.get('d1'))?.latest_revision_id, 'r3');
    assert.deepEqual(ids(await repo.revisions.ofDeployment('d1')), ['r1', 'r2', 'r3']);
    assert.deepEqual(ids(await repo.revisions.newestFirst('d1', undefined, { offset: 1, limit: 5 })), ['r2', 'r1']);
    assert.deepEqual(ids(await repo.revisions.newestFirst('d1', (r) => r.status !== 'BUILD_FAILED', { offset: 0, limit: 5 })), ['r3', 'r2']);
    assert.deepEqual(ids(await repo.revisions.withStatus('BUILDING')), ['r3']);
    assert.deepEqual(
      (await repo.revisions.getMany(['r2', 'nothing', 'r1'])).map((r) => r?.id),
      ['r2', undefined, 'r1'],
    );
    await repo.revisions.put({ ...(await repo.revisions.get('r3'))!, status: 'DEPLOYED' });
    assert.equal((await repo.revisions.get('r3'))?.status, 'DEPLOYED');
  });

  it('removes a deployment with all its revisions, leaving the others', async () => {
    const repo = await open();
    await repo.write([putDeployment(deployment('d1')), putRevision(revision('r1', 'd1')), putRevision(revision('r2', 'd1'))]);
    await repo.write([putDeployment(deployment('d2')), putRevision(revision('r3', 'd2'))]);
    await repo.remove('d1');
    assert.equal(await repo.deployments.get('d1'), undefined);
    assert.deepEqual(await repo.revisions.getMany(['r1', 'r2']), [undefined, undefined]);
    assert.deepEqual(ids(await repo.revisions.ofDeployment('d2')), ['r3']);
  });

  it('hides the deployments a view refuses and their revisions from its reads; its writes reach the records', async () => {
    const repo = await open();
    await repo.write([putDeployment(deployment('local')), putRevision(revision('r-local', 'local', 'BUILDING'))]);
    await repo.write([putDeployment(deployment('remote', { listener_id: 'l1' })), putRevision(revision('r-remote', 'remote', 'BUILDING'))]);
    const view = repo.hiding((d) => d.source_config.listener_id === null);
    assert.equal(await view.deployments.get('remote'), undefined);
    assert.equal(await view.revisions.get('r-remote'), undefined);
    assert.deepEqual(ids(await view.deployments.withStatus('READY')), ['local']);
    assert.deepEqual(ids(await view.revisions.withStatus('BUILDING')), ['r-local']);
    assert.deepEqual(ids(await view.revisions.ofDeployment('remote')), []);
    await view.write([putRevision({ ...(await view.revisions.get('r-local'))!, status: 'DEPLOYED' })]);
    assert.equal((await repo.revisions.get('r-local'))?.status, 'DEPLOYED');
    assert.equal((await repo.revisions.get('r-remote'))?.status, 'BUILDING');
    // the view's writers go through the same locks
    assert.equal(view.locks, repo.locks);
  });

  it('keeps providers by id and by the name a tenant calls them, and listeners by status, page and compute id', async () => {
    const repo = await open();
    const provider = (id: string, tenant: string, providerId: string) =>
      ({ id, tenant_id: tenant, provider_id: providerId, tenant_provider: `${tenant}/${providerId}` }) as unknown as ProviderRecord;
    await repo.providers.put(provider('p1', A, 'github'));
    await repo.providers.put(provider('p2', B, 'github'));
    assert.equal((await repo.providers.named(`${B}/github`))?.id, 'p2');
    assert.equal(await repo.providers.named(`${A}/gitlab`), undefined);
    assert.deepEqual(ids(await repo.providers.ofTenant(A)), ['p1']);
    assert.deepEqual(ids(await repo.providers.all()), ['p1', 'p2']);
    await repo.providers.delete('p1');
    assert.equal(await repo.providers.get('p1'), undefined);

    const listener = (id: string, status: string) =>
      ({ id, tenant_id: A, compute_id: id, tenant_compute: `${A}/${id}`, status, token_hash: null }) as unknown as ListenerRecord;
    await repo.listeners.put(listener('l1', 'CONNECTED'));
    await repo.listeners.put(listener('l2', 'DISCONNECTED'));
    await repo.listeners.put(listener('l3', 'CONNECTED'));
    assert.deepEqual(ids(await repo.listeners.withStatus('CONNECTED')), ['l1', 'l3']);
    assert.deepEqual(ids(await repo.listeners.newestFirst(A, { offset: 1, limit: 5 })), ['l2', 'l1']);
    assert.equal(await repo.listeners.computeTaken(`${A}/l2`), true);
    await repo.listeners.delete('l2');
    assert.equal(await repo.listeners.computeTaken(`${A}/l2`), false);
  });
}
