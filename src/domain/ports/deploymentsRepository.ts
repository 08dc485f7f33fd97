// The deployments' list query: one tenant's deployments, newest first, with the list's
// filters. Answered by the collection on the embedded store (collectionDeployments.ts) and in
// SQL over the deployments table on PostgreSQL (pgDeployments.ts).
import type { ListDeploymentsQuery } from '../../../generated/control-plane/types.gen.ts';

/** The list's filters, as the request names them. */
export type DeploymentFilter = Pick<ListDeploymentsQuery, 'name_contains' | 'status' | 'remote_reconciled' | 'image_version' | 'deployment_type'>;

/** What the filters read of a deployment record (control-plane/records.ts's DeploymentRecord). */
export interface FilteredDeployment {
  name: string;
  status: string;
  image_version?: string | null;
  source_config: { listener_id: string | null; deployment_type?: string | null };
}

/** Generic in the record (DeploymentRecord), which holds this repository. */
export interface DeploymentsRepository<Record extends FilteredDeployment> {
  /** One page of the tenant's deployments matching the filter, newest (last created) first. */
  newestFirst(tenantId: string, filter: DeploymentFilter, page: { offset: number; limit: number }): Promise<Record[]>;
}
