// The deployments list's filters (DeploymentsRepository.newestFirst in
// controlPlaneRepository.ts): closures over the records on the embedded store
// (adapters/embedded/collectionDeployments.ts), columns in SQL on PostgreSQL (pgDeployments.ts).
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
