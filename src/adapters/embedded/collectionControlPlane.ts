// The control plane's records in collections of the store: deployments (collectionDeployments.ts),
// revisions, OAuth providers and listeners, each with the indexes its look-ups use. On the
// embedded store they are held in memory and journalled; on PostgreSQL each collection is a
// table (pgTables.ts) and the deployments list is in SQL (pgDeployments.ts).
import type { Listener, RevisionStatus } from '../../../generated/control-plane/types.gen.ts';
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type {
  ControlPlaneRepository,
  DeploymentRecord,
  DeploymentsRepository,
  ListenerRecord,
  ListenersRepository,
  ProviderRecord,
  ProvidersRepository,
  RecordWrite,
  RevisionRecord,
  RevisionsRepository,
  TenantTotalsRecord,
  TenantTotalsRepository,
} from '../../domain/ports/controlPlaneRepository.ts';
import { KeyedLock, type Locks } from '../../domain/keyedLock.ts';
import { CollectionDeployments, DEPLOYMENTS_COLLECTION } from './collectionDeployments.ts';
import { hidingStore } from './hidingStore.ts';

export const COLLECTIONS = {
  deployments: DEPLOYMENTS_COLLECTION,
  revisions: 'cp-revisions',
  providers: 'cp-auth-providers',
  listeners: 'cp-listeners',
  tenantTotals: 'cp-tenant-totals',
} as const;

/** A tenant's totals (deploymentQuotas.ts): one record by its id, read by each create; on PostgreSQL in the table of documents. */
class CollectionTenantTotals implements TenantTotalsRepository {
  private readonly totals: Collection<TenantTotalsRecord>;

  constructor(store: Store) {
    this.totals = store.collection(COLLECTIONS.tenantTotals);
  }

  get(tenantId: string): Promise<TenantTotalsRecord | undefined> {
    return this.totals.get(tenantId);
  }
}

class CollectionRevisions implements RevisionsRepository {
  private readonly revisions: Collection<RevisionRecord>;

  constructor(store: Store) {
    this.revisions = store.collection(COLLECTIONS.revisions, { indexes: ['deployment_id', 'status'] });
  }

  get(id: string): Promise<RevisionRecord | undefined> {
    return this.revisions.get(id);
  }

  getMany(ids: string[]): Promise<(RevisionRecord | undefined)[]> {
    return this.revisions.getMany(ids);
  }

  withStatus(status: RevisionStatus): Promise<RevisionRecord[]> {
    return this.revisions.list({ where: { status } });
  }

  ofDeployment(deploymentId: string): Promise<RevisionRecord[]> {
    return this.revisions.list({ where: { deployment_id: deploymentId } });
  }

  newestFirst(
    deploymentId: string,
    keep: ((revision: RevisionRecord) => boolean) | undefined,
    page: { offset: number; limit: number },
  ): Promise<RevisionRecord[]> {
    return this.revisions.list({ where: { deployment_id: deploymentId }, reverse: true, filter: keep, offset: page.offset, limit: page.limit });
  }

  put(revision: RevisionRecord): Promise<void> {
    return this.revisions.put(revision.id, revision);
  }
}

class CollectionProviders implements ProvidersRepository {
  private readonly providers: Collection<ProviderRecord>;

  constructor(store: Store) {
    this.providers = store.collection(COLLECTIONS.providers, { indexes: ['tenant_id', 'tenant_provider'] });
  }

  get(id: string): Promise<ProviderRecord | undefined> {
    return this.providers.get(id);
  }

  async named(tenantProvider: string): Promise<ProviderRecord | undefined> {
    const [record] = await this.providers.list({ where: { tenant_provider: tenantProvider }, limit: 1 });
    return record;
  }

  ofTenant(tenantId: string): Promise<ProviderRecord[]> {
    return this.providers.list({ where: { tenant_id: tenantId } });
  }

  all(): Promise<ProviderRecord[]> {
    return this.providers.list();
  }

  put(provider: ProviderRecord): Promise<void> {
    return this.providers.put(provider.id, provider);
  }

  async delete(id: string): Promise<void> {
    await this.providers.delete(id);
  }
}

class CollectionListeners implements ListenersRepository {
  private readonly listeners: Collection<ListenerRecord>;

  constructor(store: Store) {
    this.listeners = store.collection(COLLECTIONS.listeners, { indexes: ['tenant_id', 'tenant_compute', 'status'] });
  }

  get(id: string): Promise<ListenerRecord | undefined> {
    return this.listeners.get(id);
  }

  withStatus(status: Listener['status']): Promise<ListenerRecord[]> {
    return this.listeners.list({ where: { status } });
  }

  newestFirst(tenantId: string, page: { offset: number; limit: number }): Promise<ListenerRecord[]> {
    return this.listeners.list({ where: { tenant_id: tenantId }, reverse: true, offset: page.offset, limit: page.limit });
  }

  async computeTaken(tenantCompute: string): Promise<boolean> {
    return (await this.listeners.count({ where: { tenant_compute: tenantCompute } })) > 0;
  }

  put(listener: ListenerRecord): Promise<void> {
    return this.listeners.put(listener.id, listener);
  }

  async delete(id: string): Promise<void> {
    await this.listeners.delete(id);
  }
}

export class CollectionControlPlane implements ControlPlaneRepository {
  readonly deployments: DeploymentsRepository;
  readonly revisions: RevisionsRepository;
  readonly providers: ProvidersRepository;
  readonly listeners: ListenersRepository;
  readonly tenantTotals: TenantTotalsRepository;

  constructor(
    private readonly store: Store,
    readonly locks: Locks = new KeyedLock(),
    /** The deployments kept by the backend itself (PostgreSQL's list in SQL); else over the collection. */
    deployments?: DeploymentsRepository,
    readonly innermostLocks: Locks = locks,
  ) {
    this.deployments = deployments ?? new CollectionDeployments(store);
    this.revisions = new CollectionRevisions(store);
    this.providers = new CollectionProviders(store);
    this.listeners = new CollectionListeners(store);
    this.tenantTotals = new CollectionTenantTotals(store);
  }

  write(writes: RecordWrite[]): Promise<void> {
    return this.store.write(writes.map(toWriteOp));
  }

  async remove(deploymentId: string, alongside: RecordWrite[] = []): Promise<void> {
    const revisions = await this.revisions.ofDeployment(deploymentId);
    await this.store.write([
      ...revisions.map((r): WriteOp => ({ collection: COLLECTIONS.revisions, id: r.id, delete: true })),
      { collection: COLLECTIONS.deployments, id: deploymentId, delete: true },
      ...alongside.map(toWriteOp),
    ]);
  }

  hiding(visible: (deployment: DeploymentRecord) => boolean): ControlPlaneRepository {
    const deployments = this.deployments;
    const store = hidingStore(this.store, {
      [COLLECTIONS.deployments]: async (d) => visible(d as DeploymentRecord),
      [COLLECTIONS.revisions]: async (r) => {
        const deployment = await deployments.get((r as RevisionRecord).deployment_id);
        return !deployment || visible(deployment);
      },
    });
    return new CollectionControlPlane(store, this.locks, undefined, this.innermostLocks);
  }
}

function toWriteOp(write: RecordWrite): WriteOp {
  if ('deployment' in write) return { collection: COLLECTIONS.deployments, id: write.deployment.id, value: write.deployment };
  if ('revision' in write) return { collection: COLLECTIONS.revisions, id: write.revision.id, value: write.revision };
  return { collection: COLLECTIONS.tenantTotals, id: write.tenantTotals.id, value: write.tenantTotals };
}
