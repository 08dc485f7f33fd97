// The deployments' list over a generic collection (the embedded store, which holds every
// deployment in memory): the filters are closures over the tenant's records.
import type { Collection } from '../ports/store.ts';
import type { DeploymentFilter, DeploymentsRepository, FilteredDeployment } from '../ports/deploymentsRepository.ts';

export class CollectionDeployments<R extends FilteredDeployment> implements DeploymentsRepository<R> {
  constructor(private readonly deployments: Collection<R>) {}

  newestFirst(tenantId: string, filter: DeploymentFilter, page: { offset: number; limit: number }): Promise<R[]> {
    const matches = deploymentFilter(filter);
    return this.deployments.list({
      where: { tenant_id: tenantId },
      reverse: true,
      ...(matches ? { filter: matches } : {}),
      offset: page.offset,
      limit: page.limit,
    });
  }
}

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
