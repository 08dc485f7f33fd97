// The deployments list's filters as one test of a record: the embedded store's list applies
// it to the tenant's records, and a list by ids to the deployments it names.
import type { DeploymentFilter, FilteredDeployment } from '../ports/controlPlaneRepository.ts';

/** The list's filters as one test of a record (undefined: no filter). */
export function deploymentFilter(query: DeploymentFilter): ((r: FilteredDeployment) => boolean) | undefined {
  const tests: ((r: FilteredDeployment) => boolean)[] = [];
  if (query.name_contains) {
    const needle = query.name_contains.toLowerCase();
    tests.push((r) => r.name.toLowerCase().includes(needle));
  }
  if (query.status !== undefined) tests.push((r) => r.status === query.status);
  if (query.remote_reconciled !== undefined) tests.push((r) => (r.source_config.listener_id !== null) === query.remote_reconciled);
  if (query.image_version !== undefined) tests.push((r) => r.image_version === query.image_version);
  if (query.deployment_type !== undefined) tests.push((r) => r.source_config.deployment_type === query.deployment_type);
  return tests.length ? (r) => tests.every((test) => test(r)) : undefined;
}
