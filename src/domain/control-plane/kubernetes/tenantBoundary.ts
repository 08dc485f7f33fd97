// The tenant boundary of what agentplane renders and runs from a deployment's `resource_spec`
// (docs/control-plane.md, "Tenant boundary"): what is admitted is the allowlist's business
// (allowlist/resourceSpec.ts: every container under Kubernetes' "restricted" Pod Security
// Standard, references naming only what the deployment owns, no reserved annotation or label);
// the namespace and service account are the operator's. Pure rules: `tenantBoundaryProblems`
// says what a request breaks (each a field and the rule, a 422), `restrictedSecurityContext`
// is the context every rendered container carries, built from the admitted fields.
import { admitResourceSpec, type AdmittedContainer } from './allowlist/resourceSpec.ts';
import type { TenantWorkload } from '../workloadPolicy.ts';

export interface BoundaryProblem {
  /** Where in the request: ['source_config', 'resource_spec', 'sidecars', 0, 'securityContext', 'privileged']. */
  loc: (string | number)[];
  msg: string;
}

/** The user a container runs as when its request names none: agentplane's images' `node` user. */
export const DEFAULT_UID = 1000;
/** Its group, likewise: never group 0, which owns much of an image's file system. */
export const DEFAULT_GID = 1000;

type AdmittedContext = NonNullable<AdmittedContainer['securityContext']>;

/**
 * The securityContext of every container agentplane renders: the enforced fields, and of the
 * admitted ones (allowlist/containers.ts) the user, group, read-only root, the one addable
 * capability, a Localhost seccomp profile and an SELinux type.
 */
export function restrictedSecurityContext(given: AdmittedContext | null | undefined): Record<string, unknown> {
  const add = given?.capabilities?.add ?? [];
  return {
    runAsUser: given?.runAsUser ?? DEFAULT_UID,
    runAsGroup: given?.runAsGroup ?? DEFAULT_GID,
    runAsNonRoot: true,
    privileged: false,
    allowPrivilegeEscalation: false,
    ...(given?.readOnlyRootFilesystem !== undefined ? { readOnlyRootFilesystem: given.readOnlyRootFilesystem } : {}),
    capabilities: { drop: ['ALL'], ...(add.length ? { add: [...add] } : {}) },
    seccompProfile:
      given?.seccompProfile?.type === 'Localhost' ? { type: 'Localhost', localhostProfile: given.seccompProfile.localhostProfile } : { type: 'RuntimeDefault' },
    ...(given?.procMount ? { procMount: given.procMount } : {}),
    ...(given?.seLinuxOptions?.type ? { seLinuxOptions: { type: given.seLinuxOptions.type } } : {}),
  };
}

/** The pod-level securityContext of every pod agentplane renders. */
export const RESTRICTED_POD_CONTEXT = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } as const;

/**
 * What a deployment's request breaks of the tenant boundary; [] when nothing. `deploymentId`
 * is the deployment's id (null at create, before it exists: no reference is allowed).
 */
export function tenantBoundaryProblems(
  spec: unknown,
  listenerConfig: { k8s_namespace?: string | null } | null | undefined,
  deploymentId: string | null,
  viaListener: boolean,
  workload: TenantWorkload,
): BoundaryProblem[] {
  const problems: BoundaryProblem[] = [];
  // a listener deploys on its own cluster (the namespace is its operator's choice among its k8s_namespaces)
  if (!viaListener && listenerConfig?.k8s_namespace != null)
    problems.push({
      loc: ['source_config', 'listener_config', 'k8s_namespace'],
      msg: "the namespace is the operator's (AGENTPLANE_KUBE_NAMESPACE); a deployment may name one only when a listener deploys it.",
    });
  const admission = admitResourceSpec(spec, { deploymentId, workload });
  return admission.ok ? problems : [...problems, ...admission.problems];
}
