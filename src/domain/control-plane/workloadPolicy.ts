// What the operator lets each tenant's deployments run (docs/control-plane.md, "Tenant
// boundary"): the registry namespaces its images may come from, the CSI drivers its volumes may
// name, how many replicas one deployment may ask for, and how large its annotations and
// resource_spec may be. The settings are read at start (runtime/config.ts); the rules that use
// them are here and in kubernetes/allowlist/, the same for every deploy target.
import { parseImageReference } from './imageReference.ts';
import { registryOnThisMachine } from './registryOnThisMachine.ts';

/** The operator's settings, as configured. */
export interface WorkloadPolicy {
  /**
   * Registry namespaces by tenant id (lower case), `*` for every tenant; a tenant may use its
   * own entry's and `*`'s (AGENTPLANE_IMAGE_NAMESPACES). A namespace `*` is every registry but
   * this machine's (its storage, `localhost/…`, and a registry on loopback, `localhost:5000/…`),
   * which only a namespace naming it opens.
   */
  imageNamespaces: Readonly<Record<string, readonly string[]>>;
  /** CSI drivers a volume may name (AGENTPLANE_CSI_DRIVERS; none by default). */
  csiDrivers: readonly string[];
  /** The most replicas of one deployment: every `*_min_scale` and `*_max_scale` (AGENTPLANE_MAX_REPLICAS). */
  maxReplicas: number;
  /** The most bytes of a deployment's annotations, keys and values (AGENTPLANE_MAX_ANNOTATION_BYTES). */
  maxAnnotationBytes: number;
  /** The most bytes of a deployment's resource_spec as JSON (AGENTPLANE_MAX_RESOURCE_SPEC_BYTES). */
  maxResourceSpecBytes: number;
  /** The most deployments one tenant holds (AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT). */
  maxDeploymentsPerTenant: number;
  /** The most replicas one tenant's deployments ask for together, each its largest scale field (AGENTPLANE_MAX_REPLICAS_PER_TENANT). */
  maxReplicasPerTenant: number;
  /** The most revisions one deployment holds, its first included (AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT). */
  maxRevisionsPerDeployment: number;
}

/** Every tenant's key in `imageNamespaces`. */
export const EVERY_TENANT = '*';
/** Every registry but this machine's (its storage and loopback registries). */
export const ANY_REGISTRY = '*';

export const DEFAULT_WORKLOAD_POLICY: WorkloadPolicy = Object.freeze({
  imageNamespaces: Object.freeze({ [EVERY_TENANT]: Object.freeze([ANY_REGISTRY]) }),
  csiDrivers: Object.freeze([]),
  maxReplicas: 10,
  // Kubernetes' own bound on an object's annotations (apimachinery's TotalAnnotationSizeLimitB)
  maxAnnotationBytes: 256 * 1024,
  maxResourceSpecBytes: 512 * 1024,
  // each deployment is a server (and up to maxReplicas of them) on the operator's machines
  maxDeploymentsPerTenant: 100,
  maxReplicasPerTenant: 200,
  // each revision is a record, its build's image and logs, kept as long as the deployment: far
  // more than a deployment changed every working day for years needs, a bound on a PATCH loop's
  maxRevisionsPerDeployment: 1000,
});

/** The policy as it applies to one tenant's deployments. */
export interface TenantWorkload {
  imageNamespaces: readonly string[];
  csiDrivers: readonly string[];
  maxReplicas: number;
  maxAnnotationBytes: number;
  maxResourceSpecBytes: number;
  maxDeploymentsPerTenant: number;
  maxReplicasPerTenant: number;
  maxRevisionsPerDeployment: number;
}

const resolved = new WeakMap<WorkloadPolicy, Map<string, TenantWorkload>>();

/** The policy for `tenantId` (the same object each time: rules made for it are kept by it). */
export function workloadOf(policy: WorkloadPolicy, tenantId: string): TenantWorkload {
  let tenants = resolved.get(policy);
  if (!tenants) resolved.set(policy, (tenants = new Map()));
  const tenant = tenantId.toLowerCase();
  let workload = tenants.get(tenant);
  if (!workload) {
    if (tenants.size >= 1024) tenants.clear();
    const namespaces = [...(policy.imageNamespaces[EVERY_TENANT] ?? []), ...(tenant === EVERY_TENANT ? [] : (policy.imageNamespaces[tenant] ?? []))];
    workload = Object.freeze({
      imageNamespaces: Object.freeze([...new Set(namespaces)]),
      csiDrivers: policy.csiDrivers,
      maxReplicas: policy.maxReplicas,
      maxAnnotationBytes: policy.maxAnnotationBytes,
      maxResourceSpecBytes: policy.maxResourceSpecBytes,
      maxDeploymentsPerTenant: policy.maxDeploymentsPerTenant,
      maxReplicasPerTenant: policy.maxReplicasPerTenant,
      maxRevisionsPerDeployment: policy.maxRevisionsPerDeployment,
    });
    tenants.set(tenant, workload);
  }
  return workload;
}

/** The repository prefix of the images agentplane builds for a deployment: that deployment's alone. */
const BUILT_PREFIX = 'agentplane-deployment-';
const LOCAL_STORAGE = 'localhost';

/** Whether `namespace` (`registry[/path]`) holds the repository `domain/path`, at a path boundary. */
function holds(namespace: string, domain: string, path: string): boolean {
  if (namespace === ANY_REGISTRY) return !registryOnThisMachine(domain);
  const [registry, ...rest] = namespace.split('/');
  if (registry!.toLowerCase() !== domain) return false;
  const prefix = rest.join('/');
  return prefix === '' || path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The image `text` a deployment may run, in its full form (what an engine is handed), or why
 * not. It may run what agentplane built for it (`localhost/agentplane-deployment-<its id>`)
 * and what a namespace of its tenant's holds; a build of another deployment never.
 */
export function admitImage(text: string, deploymentId: string | null, workload: TenantWorkload): { ok: true; image: string } | { ok: false; msg: string } {
  const parsed = parseImageReference(text);
  if (!parsed.ok) return parsed;
  const { domain, path, full } = parsed.ref;
  if (domain === LOCAL_STORAGE && path.startsWith(BUILT_PREFIX)) {
    const own = deploymentId !== null && path === `${BUILT_PREFIX}${deploymentId.toLowerCase()}`;
    return own
      ? { ok: true, image: full }
      : {
          ok: false,
          msg: `${domain}/${path} is reserved: localhost/${BUILT_PREFIX}<id> images are what agentplane built for deployment <id>, which alone runs them.`,
        };
  }
  if (workload.imageNamespaces.some((ns) => holds(ns, domain, path))) return { ok: true, image: full };
  const allowed = workload.imageNamespaces.length
    ? workload.imageNamespaces.map((ns) => (ns === ANY_REGISTRY ? "* (any registry but this machine's: localhost, loopback addresses)" : ns)).join(', ')
    : 'none';
  return {
    ok: false,
    msg: `${domain}/${path} is in no registry namespace the operator allows this tenant (AGENTPLANE_IMAGE_NAMESPACES; allowed: ${allowed}).`,
  };
}

/** The image a deployer may run for `deployment`, in full (a record stored before a rule existed is refused here too), or the sentence saying why not. */
export function imageToRun(
  deployment: { id: string; tenant_id: string },
  imageUri: string,
  policy: WorkloadPolicy,
): { ok: true; image: string } | { ok: false; reason: string } {
  const admitted = admitImage(imageUri, deployment.id, workloadOf(policy, deployment.tenant_id));
  return admitted.ok ? admitted : { ok: false, reason: `source_revision_config.image_uri is refused: ${admitted.msg}` };
}
