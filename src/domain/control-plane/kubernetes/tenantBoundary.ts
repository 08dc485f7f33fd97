// The tenant boundary of what agentplane renders and runs from a deployment's `resource_spec`
// (docs/control-plane.md, "Tenant boundary"): every container under Kubernetes' "restricted"
// Pod Security Standard, secret references naming only the deployment's own Secret, no host
// namespaces, ports or paths, and the namespace and service account the operator's. Pure
// rules: `tenantBoundaryProblems` says what a request breaks (each a field and the rule, a
// 422), `restrictedSecurityContext` is the context every rendered container carries.
import type { Container, ResourceSpec } from '../../../../generated/control-plane/types.gen.ts';

export interface BoundaryProblem {
  /** Where in the request: ['source_config', 'resource_spec', 'sidecars', 0, 'securityContext', 'privileged']. */
  loc: (string | number)[];
  msg: string;
}

/** The only capability a container may add (restricted profile). */
const ADDABLE_CAPABILITIES = new Set(['NET_BIND_SERVICE']);
/** Volume sources the restricted profile allows (everything else reaches the node: hostPath, nfs, iscsi…). */
const ALLOWED_VOLUME_SOURCES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);
const ALLOWED_SECCOMP = new Set(['RuntimeDefault', 'Localhost']);
const ALLOWED_SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
/** The user a container runs as when its request names none: agentplane's images' `node` user. */
export const DEFAULT_UID = 1000;

/** The securityContext every container agentplane renders carries: the tenant's (checked) fields under the enforced ones. */
export function restrictedSecurityContext(given: Record<string, unknown> | null | undefined): Record<string, unknown> {
  const context = { ...(given ?? {}) } as Record<string, unknown> & { capabilities?: { add?: string[] } };
  return {
    ...context,
    runAsUser: context.runAsUser ?? DEFAULT_UID,
    privileged: false,
    allowPrivilegeEscalation: false,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'], ...(context.capabilities?.add?.length ? { add: context.capabilities.add } : {}) },
    seccompProfile: (context.seccompProfile as object | undefined) ?? { type: 'RuntimeDefault' },
  };
}

/** The pod-level securityContext of every pod agentplane renders. */
export const RESTRICTED_POD_CONTEXT = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a container's securityContext breaks of the restricted profile. */
function securityContextProblems(context: unknown, at: BoundaryProblem['loc']): BoundaryProblem[] {
  if (context === null || context === undefined) return [];
  if (!isObj(context)) return [{ loc: at, msg: 'securityContext must be an object.' }];
  const problems: BoundaryProblem[] = [];
  const refuse = (field: string, msg: string) => problems.push({ loc: [...at, field], msg: `${msg} (Pod Security Standard "restricted").` });
  if (context.privileged === true) refuse('privileged', 'privileged containers are not allowed');
  if (context.allowPrivilegeEscalation === true) refuse('allowPrivilegeEscalation', 'allowPrivilegeEscalation must be false');
  if (context.runAsNonRoot === false) refuse('runAsNonRoot', 'runAsNonRoot must be true');
  if (context.runAsUser === 0) refuse('runAsUser', 'containers must not run as root (uid 0)');
  if (context.runAsGroup === 0) refuse('runAsGroup', 'containers must not run with group 0');
  const capabilities = context.capabilities;
  if (isObj(capabilities) && Array.isArray(capabilities.add)) {
    const extra = capabilities.add.filter((c) => !ADDABLE_CAPABILITIES.has(String(c)));
    if (extra.length) refuse('capabilities', `capabilities may add only NET_BIND_SERVICE, not ${extra.join(', ')}; all others are dropped`);
  }
  const seccomp = context.seccompProfile;
  if (isObj(seccomp) && !ALLOWED_SECCOMP.has(String(seccomp.type))) refuse('seccompProfile', 'seccompProfile.type must be RuntimeDefault or Localhost');
  if (context.procMount !== undefined && context.procMount !== null && context.procMount !== 'Default') refuse('procMount', 'procMount must be Default');
  const selinux = context.seLinuxOptions;
  if (isObj(selinux) && (selinux.user || selinux.role || !ALLOWED_SELINUX_TYPES.has(String(selinux.type ?? ''))))
    refuse('seLinuxOptions', 'seLinuxOptions may set only a container type (container_t, container_init_t, container_kvm_t)');
  const windows = context.windowsOptions;
  if (isObj(windows) && windows.hostProcess === true) refuse('windowsOptions', 'host processes are not allowed');
  return problems;
}

/** A secret reference that names anything but the deployment's own Secret. */
function secretRefProblem(name: unknown, own: string | null, at: BoundaryProblem['loc']): BoundaryProblem[] {
  if (name === own) return [];
  return [
    {
      loc: at,
      msg: own
        ? `a secret reference may name only the deployment's own Secret ${own}, not ${JSON.stringify(name)}.`
        : `a secret reference may name only the deployment's own Secret, agentplane-<deployment id>-secrets: create the deployment first, then PATCH its resource_spec.`,
    },
  ];
}

function containerProblems(c: Container, own: string | null, at: BoundaryProblem['loc']): BoundaryProblem[] {
  const problems = securityContextProblems(c.securityContext, [...at, 'securityContext']);
  const raw = c as unknown as Obj;
  for (const [i, port] of (Array.isArray(raw.ports) ? raw.ports : []).entries())
    if (isObj(port) && port.hostPort)
      problems.push({ loc: [...at, 'ports', i, 'hostPort'], msg: 'host ports are not allowed (Pod Security Standard "restricted").' });
  for (const [i, env] of (c.env ?? []).entries()) {
    const ref = (env as unknown as Obj).valueFrom;
    if (isObj(ref) && isObj(ref.secretKeyRef))
      problems.push(...secretRefProblem(ref.secretKeyRef.name, own, [...at, 'env', i, 'valueFrom', 'secretKeyRef', 'name']));
  }
  for (const [i, from] of (c.envFrom ?? []).entries())
    if (isObj(from) && isObj(from.secretRef)) problems.push(...secretRefProblem(from.secretRef.name, own, [...at, 'envFrom', i, 'secretRef', 'name']));
  return problems;
}

function volumeProblems(volume: Obj, own: string | null, at: BoundaryProblem['loc']): BoundaryProblem[] {
  const problems: BoundaryProblem[] = [];
  for (const source of Object.keys(volume).filter((k) => k !== 'name')) {
    if (!ALLOWED_VOLUME_SOURCES.has(source))
      problems.push({
        loc: [...at, source],
        msg: `${source} volumes are not allowed (Pod Security Standard "restricted" allows ${[...ALLOWED_VOLUME_SOURCES].join(', ')}).`,
      });
  }
  if (isObj(volume.secret)) problems.push(...secretRefProblem(volume.secret.secretName, own, [...at, 'secret', 'secretName']));
  const sources = isObj(volume.projected) && Array.isArray(volume.projected.sources) ? volume.projected.sources : [];
  for (const [i, source] of sources.entries())
    if (isObj(source) && isObj(source.secret))
      problems.push(...secretRefProblem(source.secret.name, own, [...at, 'projected', 'sources', i, 'secret', 'name']));
  return problems;
}

/**
 * What a deployment's request breaks of the tenant boundary; [] when nothing. `ownSecret` is
 * the name of the deployment's own Secret (null before it exists: no reference is allowed).
 */
export function tenantBoundaryProblems(
  spec: ResourceSpec | null | undefined,
  listenerConfig: { k8s_namespace?: string | null } | null | undefined,
  ownSecret: string | null,
  viaListener: boolean,
): BoundaryProblem[] {
  const problems: BoundaryProblem[] = [];
  const at = ['source_config', 'resource_spec'];
  // a listener deploys on its own cluster (the namespace is its operator's choice among its k8s_namespaces)
  if (!viaListener && listenerConfig?.k8s_namespace != null)
    problems.push({
      loc: ['source_config', 'listener_config', 'k8s_namespace'],
      msg: "the namespace is the operator's (AGENTPLANE_KUBE_NAMESPACE); a deployment may name one only when a listener deploys it.",
    });
  if (!spec) return problems;
  if (spec.service_account_name != null)
    problems.push({
      loc: [...at, 'service_account_name'],
      msg: "the service account is the operator's (AGENTPLANE_KUBE_SERVICE_ACCOUNT); a deployment cannot choose one.",
    });
  const raw = spec as unknown as Obj;
  for (const field of ['hostNetwork', 'hostPID', 'hostIPC', 'host_network', 'host_pid', 'host_ipc'])
    if (raw[field]) problems.push({ loc: [...at, field], msg: 'host namespaces are not allowed (Pod Security Standard "restricted").' });
  for (const [i, volume] of (spec.volumes ?? []).entries()) if (isObj(volume)) problems.push(...volumeProblems(volume, ownSecret, [...at, 'volumes', i]));
  for (const group of ['init_containers', 'sidecars'] as const)
    for (const [i, c] of (spec[group] ?? []).entries()) problems.push(...containerProblems(c, ownSecret, [...at, group, i]));
  return problems;
}
