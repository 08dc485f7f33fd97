// Deployments with a `source_config.listener_id` are reconciled by their listener, on its
// machine: the control plane's own engine never touches them. Two pieces keep it so for
// every target alike, without each knowing about listeners: the engine's ownership rule
// passes such revisions over (and reads their logs from what the listener sent), and the
// repository the engine itself reads hides them, so its resume after a restart never
// picks them up either.
import type { Collection, ListOptions, Store } from '../../ports/store.ts';
import { BUILD_PHASES_DONE, isRemote } from '../listenerRules.ts';
import { COLLECTIONS, ControlPlaneRepository, type DeploymentRecord, type RevisionRecord } from '../records.ts';
import type { RemoteRevisionLogs } from '../remoteRevisionLogs.ts';
import type { Ownership } from '../revisionEngine.ts';

/** The engine's ownership rule: a deployment a listener reconciles is the listener's, and its logs are what the listener sent. */
export function listenerOwnership(repo: ControlPlaneRepository, remoteLogs: RemoteRevisionLogs): Ownership {
  return {
    async owns(deploymentId) {
      const deployment = await repo.deployments.get(deploymentId);
      // gone meanwhile: the engine's own step finds nothing to do either
      return !deployment || !isRemote(deployment);
    },
    async foreignLogs(revision, kind, request) {
      const deployment = await repo.deployments.get(revision.deployment_id);
      if (!deployment || !isRemote(deployment)) return undefined;
      const complete = async () => {
        if (kind === 'deploy') return false;
        const now = await repo.revisions.get(revision.id);
        return !now || BUILD_PHASES_DONE(now.status);
      };
      return remoteLogs.read(revision, kind, request, complete);
    },
  };
}

/** The repository as the control plane's own deployer sees it: without remote deployments and their revisions. */
export function locallyReconciled(repo: ControlPlaneRepository): ControlPlaneRepository {
  const deployments = repo.deployments;
  const localDeployment = async (d: DeploymentRecord) => !isRemote(d);
  const localRevision = async (r: RevisionRecord) => {
    const deployment = await deployments.get(r.deployment_id);
    return !deployment || !isRemote(deployment);
  };
  const store: Store = {
    collection: <T extends object>(name: string, options?: Parameters<Store['collection']>[1]): Collection<T> => {
      const base = repo.store.collection<T>(name, options);
      if (name === COLLECTIONS.deployments) return hiding(base, localDeployment as unknown as (v: T) => Promise<boolean>);
      if (name === COLLECTIONS.revisions) return hiding(base, localRevision as unknown as (v: T) => Promise<boolean>);
      return base;
    },
    write: (ops) => repo.store.write(ops),
    collectionNames: () => repo.store.collectionNames(),
    flush: () => repo.store.flush(),
    close: () => repo.store.close(),
  };
  return new ControlPlaneRepository(store, repo.locks);
}

/** A collection whose reads leave out the records `visible` refuses; writes pass through. */
function hiding<T extends object>(base: Collection<T>, visible: (value: T) => Promise<boolean>): Collection<T> {
  const list = async (options: ListOptions<T> = {}) => {
    const { offset = 0, limit, ...rest } = options;
    const all = await base.list(rest);
    const kept: T[] = [];
    for (const value of all) if (await visible(value)) kept.push(value);
    return kept.slice(offset, limit === undefined ? undefined : offset + limit);
  };
  return {
    name: base.name,
    get: async (id) => {
      const value = await base.get(id);
      return value && (await visible(value)) ? value : undefined;
    },
    getMany: async (ids) => {
      const values = await base.getMany(ids);
      return Promise.all(values.map(async (value) => (value && (await visible(value)) ? value : undefined)));
    },
    insert: (id, value) => base.insert(id, value),
    put: (id, value) => base.put(id, value),
    update: (id, change) => base.update(id, change),
    delete: (id) => base.delete(id),
    list,
    count: async (options) => (await list(options)).length,
  };
}
