// What a deployment's pod may name of its namespace: only what the deployment owns. The
// namespace is shared by every deployment of the control plane (and whatever else its
// operator keeps there), so a name is a capability: another deployment's Secret is its
// secrets, `data-agentplane-<id>-db-0` its database. A deployment owns its Secret
// `agentplane-<id>-secrets`, and objects its operator made for it under `agentplane-<id>-…`
// (a ConfigMap, a claim, a registry's pull Secret). Before the deployment exists it owns
// nothing, so a create names nothing: create, then PATCH the resource_spec.
import { text, type Rule } from './admit.ts';
import type { TenantWorkload } from '../../workloadPolicy.ts';

export interface Owner {
  /** The deployment's id; null at create, before it has one. */
  deploymentId: string | null;
  /** What the operator lets its tenant run (workloadPolicy.ts). */
  workload: TenantWorkload;
}

export const ownSecretName = (deploymentId: string) => `agentplane-${deploymentId}-secrets`;
const ownedPrefix = (deploymentId: string) => `agentplane-${deploymentId}-`;

/** A reference to a Secret holding values (env, volumes): the deployment's own Secret only. */
export function ownSecret(owner: Owner): Rule<string> {
  return text((name) => {
    if (!owner.deploymentId)
      return `a secret reference may name only the deployment's own Secret, agentplane-<deployment id>-secrets: create the deployment first, then PATCH its resource_spec.`;
    const own = ownSecretName(owner.deploymentId);
    return name === own ? undefined : `a secret reference may name only the deployment's own Secret ${own}, not ${JSON.stringify(name)}.`;
  });
}

/** A reference to another object of the namespace (`kind`): one named `agentplane-<id>-…`. */
export function owned(owner: Owner, kind: string): Rule<string> {
  return text((name) => {
    if (!owner.deploymentId)
      return `${kind} references may name only what the deployment owns (agentplane-<deployment id>-…): create the deployment first, then PATCH its resource_spec.`;
    const prefix = ownedPrefix(owner.deploymentId);
    return name.startsWith(prefix) && name.length > prefix.length && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) && name.length <= 253
      ? undefined
      : `${kind} references may name only what the deployment owns, a name starting with ${prefix}, not ${JSON.stringify(name)}.`;
  });
}
