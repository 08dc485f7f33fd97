// A deploy target whose modules load when the revision engine first uses it. The local and
// container targets bring ~40 modules (builds, images, pods, sandboxes, the manifests' allowlist)
// that no request before a deployment's work reads; imported with the control plane they cost
// every start tens of milliseconds before its first answer. The engine starts its term once the
// server answers, and that start (or a later build, deploy, restore, removal or log read) loads
// the target: each call then goes to the target the loader made, exactly as it would have.
import type { DeployTarget } from '../../domain/control-plane/deployTarget.ts';

/**
 * A target answering as the one `load` makes, loaded at its first use and made once. Both
 * targets that load this way build revisions and restore what served after a restart: the
 * engine reads `builds` and whether `restore` exists without waiting, so they are declared here.
 */
export function lazyDeployTarget(load: () => Promise<DeployTarget>): DeployTarget {
  let made: Promise<DeployTarget> | undefined;
  const target = () => (made ??= load());
  return {
    builds: true,
    start: async (host) => {
      await (await target()).start?.(host);
    },
    // never loaded: nothing to let go
    release: async () => {
      if (made) await (await made).release?.();
    },
    build: async (deployment, revision, signal) => (await target()).build(deployment, revision, signal),
    deploy: async (deployment, revision, signal) => (await target()).deploy(deployment, revision, signal),
    restore: async (deploymentId, signal) => {
      await (await target()).restore?.(deploymentId, signal);
    },
    remove: async (deploymentId, deployment) => (await target()).remove(deploymentId, deployment),
    logs: async (revision, deployment, kind, request) => (await target()).logs(revision, deployment, kind, request),
  };
}
