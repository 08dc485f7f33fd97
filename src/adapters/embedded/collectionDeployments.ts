// The deployments in a collection of the store (the embedded store, which holds every
// deployment in memory): the list's filters are closures over the tenant's records. On
// PostgreSQL the same collection is the deployments table, and pgDeployments.ts answers the
// list in SQL instead.
import type { Collection, Store } from '../../domain/ports/store.ts';
import type { DeploymentFilter, DeploymentRecord, DeploymentsRepository } from '../../domain/ports/controlPlaneRepository.ts';
import { deploymentFilter } from '../../domain/control-plane/deploymentFilter.ts';
import type { DeploymentStatus } from '../../../generated/control-plane/types.gen.ts';

export const DEPLOYMENTS_COLLECTION = 'cp-deployments';

export class CollectionDeployments implements DeploymentsRepository {
  protected readonly deployments: Collection<DeploymentRecord>;

  constructor(store: Store) {
    this.deployments = store.collection(DEPLOYMENTS_COLLECTION, { indexes: ['tenant_id', 'tenant_name', 'status'] });
  }

  get(id: string): Promise<DeploymentRecord | undefined> {
    return this.deployments.get(id);
  }

  async ofTenant(tenantId: string, id: string): Promise<DeploymentRecord | undefined> {
    const record = await this.deployments.get(id);
    return record && record.tenant_id === tenantId ? record : undefined;
  }

  all(): Promise<DeploymentRecord[]> {
    return this.deployments.list();
  }

  withStatus(status: DeploymentStatus): Promise<DeploymentRecord[]> {
    return this.deployments.list({ where: { status } });
  }

  countWithStatus(status: DeploymentStatus): Promise<number> {
    return this.deployments.count({ where: { status } });
  }

  countOfTenant(tenantId: string): Promise<number> {
    return this.deployments.count({ where: { tenant_id: tenantId } });
  }

  async nameTaken(tenantName: string): Promise<boolean> {
    return (await this.deployments.count({ where: { tenant_name: tenantName } })) > 0;
  }

  ofListener(tenantId: string, listenerId: string): Promise<DeploymentRecord[]> {
    return this.deployments.list({ where: { tenant_id: tenantId }, filter: (d) => d.source_config.listener_id === listenerId });
  }

  newestFirst(tenantId: string, filter: DeploymentFilter, page: { offset: number; limit: number }): Promise<DeploymentRecord[]> {
    const matches = deploymentFilter(filter);
    return this.deployments.list({
      where: { tenant_id: tenantId },
      reverse: true,
      ...(matches ? { filter: matches } : {}),
      offset: page.offset,
      limit: page.limit,
    });
  }

  put(deployment: DeploymentRecord): Promise<void> {
    return this.deployments.put(deployment.id, deployment);
  }
}
