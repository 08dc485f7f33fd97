// Deployments with a `source_config.listener_id` are reconciled by their listener, on its
// machine: the control plane's own engine never touches them. Two pieces keep it so for
// every target alike, without each knowing about listeners: the engine's ownership rule
// passes such revisions over (and reads their logs from what the listener sent), and the
// repository the engine itself reads hides them, so its resume after a restart never
// picks them up either.
import { BUILD_PHASES_DONE, isRemote } from '../listenerRules.ts';
import type { ControlPlaneRepository } from '../records.ts';
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
  return repo.hiding((deployment) => !isRemote(deployment));
}
