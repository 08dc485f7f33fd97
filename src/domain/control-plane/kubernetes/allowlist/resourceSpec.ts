// The allowlist of `resource_spec`: the only path from what a tenant sent to what agentplane
// renders, for every target (kubernetes, kube-local, container, a listener's). It reads the
// seed's resource_spec, container and volume shapes, and inside their free-form objects the
// members Kubernetes' "restricted" Pod Security Standard allows, and BUILDS an AdmittedSpec
// from them field by field; any other key, in any letter case, is refused naming its path.
// An AdmittedSpec is made here only (its brand is this module's), and the renderer takes
// nothing else (test/architecture/manifestAllowlist.test.ts). The API checks a request with it
// (create, PATCH and redeploy answer 422, storing nothing); the renderer checks the stored
// deployment again, so a record stored before a rule existed is refused too.
import { decimal, integer, isSet, list, shape, type Loc, type Problem, type Rule } from './admit.ts';
import { container, volumeMount, type AdmittedContainer, type AdmittedVolumeMount } from './containers.ts';
import { annotations, labels } from './metadata.ts';
import { owned, type Owner } from './references.ts';
import { volume, type AdmittedVolume } from './volumes.ts';
import { workloadOf, type WorkloadPolicy } from '../../workloadPolicy.ts';

export type { Owner } from './references.ts';
export { ownSecretName } from './references.ts';
export type { AdmittedContainer, AdmittedVolume, AdmittedVolumeMount };

const cores = decimal(Number.MIN_VALUE, 16);
const megabytes = integer(0, 2 ** 31 - 1);

/** Replica counts: as many as the operator allows one deployment (the container deployer starts min_scale of them). */
function scales(max: number) {
  const count = integer(0, max, `must be an integer from 0 to ${max}: the most replicas of one deployment the operator allows (AGENTPLANE_MAX_REPLICAS).`);
  return {
    min_scale: count,
    max_scale: count,
    queue_min_scale: count,
    queue_max_scale: count,
    orchestrator_min_scale: count,
    orchestrator_max_scale: count,
  };
}

/** The other numeric fields of the seed's resource_spec, each as the API's schema types it. */
const NUMBERS = {
  cpu: cores,
  cpu_limit: cores,
  memory_mb: megabytes,
  memory_limit_mb: megabytes,
  queue_cpu: cores,
  queue_cpu_limit: cores,
  queue_memory_mb: megabytes,
  queue_memory_limit_mb: megabytes,
  orchestrator_cpu: cores,
  orchestrator_cpu_limit: cores,
  orchestrator_memory_mb: megabytes,
  orchestrator_memory_limit_mb: megabytes,
  executor_cpu: cores,
  executor_cpu_limit: cores,
  executor_memory_mb: megabytes,
  executor_memory_limit_mb: megabytes,
  redis_cpu: cores,
  redis_cpu_limit: cores,
  redis_memory_mb: megabytes,
  redis_memory_limit_mb: megabytes,
  db_cpu: cores,
  db_cpu_limit: cores,
  db_memory_mb: megabytes,
  db_memory_limit_mb: megabytes,
  db_storage_gi: megabytes,
  db_max_connections: megabytes,
};

/** Annotations within the operator's bound on their bytes (keys and values, as UTF-8). */
function boundedAnnotations(max: number): Rule<Record<string, string>> {
  return (value, at, problems) => {
    const built = annotations(value, at, problems);
    if (!built) return built;
    const bytes = Object.entries(built).reduce((sum, [k, v]) => sum + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
    if (bytes <= max) return built;
    problems.push({ loc: at, msg: `the annotations hold ${bytes} bytes; the operator allows ${max} (AGENTPLANE_MAX_ANNOTATION_BYTES).` });
    return undefined;
  };
}

function resourceSpec(owner: Owner) {
  return shape({
    ...scales(owner.workload.maxReplicas),
    ...NUMBERS,
    labels,
    annotations: boundedAnnotations(owner.workload.maxAnnotationBytes),
    service_account_name: (_value: unknown, at: Loc, problems: Problem[]): undefined =>
      void problems.push({ loc: at, msg: "the service account is the operator's (AGENTPLANE_KUBE_SERVICE_ACCOUNT); a deployment cannot choose one." }),
    image_pull_secrets: list(shape({ name: owned(owner, 'image pull Secret') }, { required: ['name'] })),
    volumes: list(volume(owner)),
    volume_mounts: list(volumeMount),
    init_containers: list(container(owner)),
    sidecars: list(container(owner)),
  });
}

/** The rules of recent deployments, by their tenant's workload: they close over both, and making them costs more than applying them. */
const recent = new WeakMap<Owner['workload'], Map<string | null, ReturnType<typeof resourceSpec>>>();
function rulesOf(owner: Owner): ReturnType<typeof resourceSpec> {
  let ofWorkload = recent.get(owner.workload);
  if (!ofWorkload) recent.set(owner.workload, (ofWorkload = new Map()));
  let rules = ofWorkload.get(owner.deploymentId);
  if (!rules) {
    if (ofWorkload.size >= 256) ofWorkload.clear();
    rules = resourceSpec(owner);
    ofWorkload.set(owner.deploymentId, rules);
  }
  return rules;
}

declare const admitted: unique symbol;
type Built = NonNullable<ReturnType<ReturnType<typeof resourceSpec>>>;

/** A resource_spec as the allowlist built it: the renderer's only input from the tenant. */
export type AdmittedSpec = Readonly<Built> & { readonly [admitted]: true };

export type Admission = { ok: true; spec: AdmittedSpec } | { ok: false; problems: Problem[] };

const AT = ['source_config', 'resource_spec'];

/** Pod-wide rules: names unique, every mount naming a volume of the pod. */
function podProblems(spec: Omit<AdmittedSpec, typeof admitted>): Problem[] {
  const problems: Problem[] = [];
  const volumes = new Set<string>();
  for (const [i, v] of (spec.volumes ?? []).entries()) {
    if (volumes.has(v.name!)) problems.push({ loc: [...AT, 'volumes', i, 'name'], msg: `two volumes are named ${v.name}.` });
    volumes.add(v.name!);
  }
  const mounts = (group: string, list: AdmittedVolumeMount[] | undefined, ...at: (string | number)[]) =>
    (list ?? []).forEach((m, i) => {
      if (!volumes.has(m.name!)) problems.push({ loc: [...AT, group, ...at, i, 'name'], msg: `no volume of the pod is named ${m.name}.` });
    });
  mounts('volume_mounts', spec.volume_mounts);
  const names = new Set<string>();
  for (const group of ['init_containers', 'sidecars'] as const)
    for (const [i, c] of (spec[group] ?? []).entries()) {
      if (names.has(c.name!)) problems.push({ loc: [...AT, group, i, 'name'], msg: `two containers are named ${c.name}.` });
      names.add(c.name!);
      mounts(group, c.volumeMounts, i, 'volumeMounts');
    }
  return problems;
}

/**
 * `resource_spec` (as sent, or as stored) admitted for the deployment `owner`: built from the
 * allowlist, or every problem found (a path and the rule each). Null or absent admits nothing.
 */
export function admitResourceSpec(raw: unknown, owner: Owner): Admission {
  if (!isSet(raw)) return { ok: true, spec: {} as AdmittedSpec };
  const bytes = Buffer.byteLength(JSON.stringify(raw) ?? '');
  const max = owner.workload.maxResourceSpecBytes;
  if (bytes > max)
    return {
      ok: false,
      problems: [{ loc: AT, msg: `the resource_spec holds ${bytes} bytes as JSON; the operator allows ${max} (AGENTPLANE_MAX_RESOURCE_SPEC_BYTES).` }],
    };
  const problems: Problem[] = [];
  const built = rulesOf(owner)(raw, AT, problems);
  if (!built) return { ok: false, problems };
  const pod = podProblems(built as AdmittedSpec);
  return pod.length ? { ok: false, problems: pod } : { ok: true, spec: built as AdmittedSpec };
}

/** A deployment's stored resource_spec admitted for it (what every deploy target reads of it), or the sentence saying why not. */
export function admitDeploymentSpec(
  deployment: { id: string; tenant_id: string; source_config: { resource_spec?: unknown } },
  policy: WorkloadPolicy,
): { ok: true; spec: AdmittedSpec } | { ok: false; reason: string } {
  const admission = admitResourceSpec(deployment.source_config.resource_spec, {
    deploymentId: deployment.id,
    workload: workloadOf(policy, deployment.tenant_id),
  });
  if (admission.ok) return admission;
  return { ok: false, reason: `the resource_spec is refused: ${admission.problems.map((p) => `${p.loc.join('.')}: ${p.msg}`).join(' ')}` };
}
