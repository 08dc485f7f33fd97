// The deployments on PostgreSQL: kept in the deployments table through the store's
// collection, as on the embedded store, with the list in SQL over agentplane_deployments
// (pgTables.ts): the tenant, name, status, image version, deployment type and listener are
// columns, so a page is read newest first through the tenant's index and filtered there, not
// in Node.
import type { DeploymentFilter, DeploymentRecord } from '../../domain/ports/controlPlaneRepository.ts';
import { CollectionDeployments } from '../embedded/collectionDeployments.ts';
import type { PgStore } from './pgStore.ts';

export class PgDeployments extends CollectionDeployments {
  constructor(private readonly store: PgStore) {
    super(store);
  }

  override async newestFirst(tenantId: string, filter: DeploymentFilter, page: { offset: number; limit: number }): Promise<DeploymentRecord[]> {
    const { sql, params } = deploymentListSql(tenantId, filter, page);
    const { rows } = await this.store.query<{ doc: DeploymentRecord }>(sql, params);
    return rows.map((r) => r.doc);
  }
}

/** The statement of a list page (exported for the EXPLAIN tests). */
export function deploymentListSql(tenantId: string, filter: DeploymentFilter, page: { offset: number; limit: number }): { sql: string; params: unknown[] } {
  const params: unknown[] = [tenantId];
  const parts = ['tenant_id = $1'];
  const equal = (column: string, value: unknown) => {
    params.push(value);
    parts.push(`${column} = $${params.length}`);
  };
  if (filter.name_contains) {
    params.push(filter.name_contains);
    parts.push(`strpos(lower(name), lower($${params.length})) > 0`);
  }
  if (filter.status !== undefined) equal('status', filter.status);
  if (filter.remote_reconciled !== undefined) parts.push(filter.remote_reconciled ? 'listener_id IS NOT NULL' : 'listener_id IS NULL');
  if (filter.image_version !== undefined) equal('image_version', filter.image_version);
  if (filter.deployment_type !== undefined) equal('deployment_type', filter.deployment_type);
  params.push(page.offset, page.limit);
  return {
    sql: `SELECT doc FROM agentplane_deployments WHERE ${parts.join(' AND ')} ORDER BY seq DESC OFFSET $${params.length - 1} LIMIT $${params.length}`,
    params,
  };
}
