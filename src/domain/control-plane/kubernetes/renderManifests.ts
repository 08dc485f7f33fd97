// A revision as Kubernetes manifests, from its deployment's `resource_spec`: the API server
// (Deployment, HPA, PodDisruptionBudget, Service), queue workers when `queue_*` is set (the
// same image in the `queue` role), the secrets (Secret, as environment variables), and the
// deployment's own PostgreSQL (StatefulSet with a PVC, Service, Secret), always — as upstream
// provisions one per deployment: the threads, runs and store outlive every pod (a new revision,
// a reschedule), and a change of min_scale or max_scale never changes where they live.
// What a cluster engineer expects of them: a Deployment an HPA scales has no `replicas` (each
// apply would reset what the HPA chose); two or more replicas get a PodDisruptionBudget; rollouts
// add a pod before taking one away; a pod leaves the Service before its server stops listening;
// the user's annotations go on the workloads, their pods and the Service only. Pure: the same
// revision always renders the same manifests; what applies them is the deployer's business.
// What the tenant sent reaches a manifest only as the allowlist built it (allowlist/
// resourceSpec.ts): `renderManifests` admits the stored `resource_spec` and the rest of this
// file reads nothing but the AdmittedSpec.
import type { DeploymentRecord, RevisionRecord } from '../records.ts';
import { admitResourceSpec, type AdmittedContainer, type AdmittedSpec } from './allowlist/resourceSpec.ts';
import { RESTRICTED_POD_CONTEXT, restrictedSecurityContext } from './tenantBoundary.ts';
import { admitImage, type TenantWorkload } from '../workloadPolicy.ts';
import { networkPolicies } from './networkPolicies.ts';

/** A Kubernetes object as applied: apiVersion, kind, metadata with name (and namespace). */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface RenderInput {
  deployment: Pick<DeploymentRecord, 'id' | 'name' | 'source_config' | 'secrets'>;
  revision: Pick<RevisionRecord, 'id' | 'source_revision_config'>;
  /** Namespace when the deployment names none in `listener_config.k8s_namespace`. */
  defaultNamespace: string;
  /** Image of the deployment's PostgreSQL. */
  postgresImage: string;
  /** Password of the deployment's PostgreSQL (kept by the deployer; never part of the revision). */
  databasePassword: string;
  /** What the operator lets the deployment's tenant run (workloadPolicy.ts). */
  workload: TenantWorkload;
  /** The server's auth (deployer/deployedServerAuth.ts): set after the secrets, so no secret of the tenant's can turn it off. */
  serverAuth?: Record<string, string>;
}

/** A field of `resource_spec` the renderer will not turn into manifests, and why. */
export interface RefusedField {
  field: string;
  message: string;
  /** Where in the deployment, when not `source_config.resource_spec.<field>`. */
  loc?: (string | number)[];
}

export type Rendered = { ok: true; namespace: string; manifests: Manifest[] } | { ok: false; refused: RefusedField[] };

/** The port agentplane's agent server listens on in its image. */
export const SERVER_PORT = 8000;
export const DATABASE_PORT = 5432;
/** The uid of the `postgres` user of the official PostgreSQL image. */
const POSTGRES_UID = 999;
/**
 * A stopping pod keeps serving this long before its server gets SIGTERM: the endpoints
 * controller and every node's proxy take a few seconds to stop sending it new connections.
 */
export const PRE_STOP_SECONDS = 5;
/** preStop, then the server's own drain on SIGTERM (in-flight requests ≤ 5 s, then its runs handed back). */
export const TERMINATION_GRACE_SECONDS = 30;
/** Where Node.js is in agentplane's images (the base `build` makes, and the official node images): preStop's sleep, as they have no coreutils. */
const IMAGE_NODE = '/usr/local/bin/node';

const REDIS_FIELDS = ['redis_cpu', 'redis_cpu_limit', 'redis_memory_mb', 'redis_memory_limit_mb'] as const;
// upstream marks these "do not use"; agentplane has no orchestrator or executor process
const IGNORED_FIELDS = [
  'orchestrator_cpu',
  'orchestrator_cpu_limit',
  'orchestrator_memory_mb',
  'orchestrator_memory_limit_mb',
  'orchestrator_min_scale',
  'orchestrator_max_scale',
  'executor_cpu',
  'executor_cpu_limit',
  'executor_memory_mb',
  'executor_memory_limit_mb',
] as const;
const QUEUE_FIELDS = ['queue_min_scale', 'queue_max_scale', 'queue_cpu', 'queue_cpu_limit', 'queue_memory_mb', 'queue_memory_limit_mb'] as const;

/** Default size of the database's volume when `db_storage_gi` is not set. */
export const DEFAULT_DB_STORAGE_GI = 10;

/** Names of the objects of one deployment: DNS labels, derived from its id (names may repeat across tenants). */
export function objectNames(deploymentId: string) {
  const base = `agentplane-${deploymentId}`;
  return { server: base, queue: `${base}-queue`, secrets: `${base}-secrets`, database: `${base}-db`, databaseSecret: `${base}-db-auth` };
}

/** The operator's namespace; a deployment's own choice counts only where its listener deploys it (tenantBoundary.ts). */
export function namespaceOf(deployment: RenderInput['deployment'], fallback: string): string {
  return (deployment.source_config.listener_id && deployment.source_config.listener_config?.k8s_namespace) || fallback;
}

const set = <T>(value: T | null | undefined): value is T => value !== null && value !== undefined;

/** Null means "not set" in the control plane's objects and nothing at all to Kubernetes. */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutNulls) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null && v !== undefined)
        .map(([k, v]) => [k, withoutNulls(v)]),
    ) as T;
  }
  return value;
}

const cpuQuantity = (cores: number) => `${Math.round(cores * 1000)}m`;
const memoryQuantity = (mb: number) => `${mb}Mi`;

/** Requests and limits of one process: a limit not given is twice its request (upstream's rule). */
function resources(
  cpu: number | null | undefined,
  cpuLimit: number | null | undefined,
  memory: number | null | undefined,
  memoryLimit: number | null | undefined,
) {
  const requests: Record<string, string> = {};
  const limits: Record<string, string> = {};
  if (set(cpu)) requests.cpu = cpuQuantity(cpu);
  if (set(memory)) requests.memory = memoryQuantity(memory);
  const cpuMax = cpuLimit ?? (set(cpu) ? cpu * 2 : null);
  const memoryMax = memoryLimit ?? (set(memory) ? memory * 2 : null);
  if (set(cpuMax)) limits.cpu = cpuQuantity(cpuMax);
  if (set(memoryMax)) limits.memory = memoryQuantity(memoryMax);
  return withoutEmpty({ requests, limits });
}

function withoutEmpty<T extends Record<string, Record<string, string>>>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => Object.keys(v).length > 0)) as Partial<T>;
}

type Numbers<K extends string> = { readonly [F in K]?: number | null };

export const hasQueue = (spec: Numbers<(typeof QUEUE_FIELDS)[number]>) => QUEUE_FIELDS.some((f) => set(spec[f]));

/** Fields the renderer refuses: agentplane runs no Redis (PostgreSQL carries its run events and wake-ups). */
export function refusedFields(spec: Numbers<(typeof REDIS_FIELDS)[number]>): RefusedField[] {
  return REDIS_FIELDS.filter((f) => set(spec[f])).map((field) => ({
    field,
    message: `resource_spec.${field} cannot be honoured: agentplane runs no Redis (its run events and wake-ups go through the deployment's PostgreSQL); leave the redis_* fields null.`,
  }));
}

export function renderManifests(input: RenderInput): Rendered {
  // the request was admitted at the API; a record stored before a rule existed is refused here
  const admission = admitResourceSpec(input.deployment.source_config.resource_spec, { deploymentId: input.deployment.id, workload: input.workload });
  if (!admission.ok)
    return { ok: false, refused: admission.problems.map((p) => ({ field: p.loc.slice(2).join('.'), message: `${p.loc.join('.')}: ${p.msg}`, loc: p.loc })) };
  return renderAdmitted(input, admission.spec);
}

/** The manifests of an admitted spec: everything of the tenant's comes from `spec`, nothing from the deployment's stored resource_spec. */
function renderAdmitted(input: RenderInput, spec: AdmittedSpec): Rendered {
  const { deployment, revision } = input;
  const refused = refusedFields(spec);
  const given = revision.source_revision_config.image_uri;
  // in its full form: a node's runtime never resolves a short name, nor an id, of its own
  const admitted = given ? admitImage(given, deployment.id, input.workload) : null;
  if (!admitted) refused.push({ field: 'image_uri', message: 'The revision has no source_revision_config.image_uri to run; Kubernetes runs images only.' });
  else if (!admitted.ok) refused.push({ field: 'image_uri', message: `source_revision_config.image_uri: ${admitted.msg}` });
  if (refused.length > 0 || !admitted?.ok) return { ok: false, refused };
  const image = admitted.image;

  const namespace = namespaceOf(deployment, input.defaultNamespace);
  const names = objectNames(deployment.id);
  const userLabels = spec.labels ?? {};
  const ignored = IGNORED_FIELDS.filter((f) => set(spec[f]));
  const annotations = {
    ...(spec.annotations ?? {}),
    // said on the workloads, so nobody wonders where those fields went
    ...(ignored.length ? { 'agentplane.dev/ignored-resource-fields': ignored.join(',') } : {}),
  };
  const annotationsField = Object.keys(annotations).length ? { annotations } : {};
  const selectorOf = (component: string) => ({
    'app.kubernetes.io/name': 'agentplane',
    'app.kubernetes.io/instance': names.server,
    'app.kubernetes.io/component': component,
  });
  // selectors use only agentplane's labels, so no user label can make two workloads select each other's pods
  const labelsOf = (component: string) => ({ ...userLabels, ...selectorOf(component), 'agentplane.dev/deployment-id': deployment.id });
  const metadata = (name: string, component: string): Manifest['metadata'] => ({ name, namespace, labels: labelsOf(component) });
  // the user's annotations (ingress, mesh, monitoring hints) are for the workload, its pods and
  // its Service; on Secrets or the database they would only leak or trigger what they should not
  const annotated = (name: string, component: string): Manifest['metadata'] => ({ ...metadata(name, component), ...annotationsField });

  const manifests: Manifest[] = [];
  if (deployment.secrets.length > 0) {
    manifests.push({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: metadata(names.secrets, 'server'),
      type: 'Opaque',
      stringData: Object.fromEntries(deployment.secrets.map((s) => [s.name, s.value])),
    });
  }
  manifests.push(...databaseManifests(input, spec, names, namespace, metadata, selectorOf('database')));
  manifests.push(...networkPolicies({ namespace, instance: names.server, labels: labelsOf, serverPort: SERVER_PORT, databasePort: DATABASE_PORT }));

  /** A Deployment; `replicas` null when an HPA owns the count. */
  const workload = (role: 'server' | 'queue', name: string, replicas: number | null, res: ReturnType<typeof resources>): Manifest => {
    const env: Record<string, unknown>[] = [
      { name: 'AGENTPLANE_ROLE', value: role },
      { name: 'HOST', value: '0.0.0.0' },
      { name: 'PORT', value: String(SERVER_PORT) },
      { name: 'AGENTPLANE_CONTROL_PLANE', value: 'off' },
      // `env` wins over `envFrom` (the secrets) in Kubernetes
      ...Object.entries(input.serverAuth ?? {}).map(([name, value]) => ({ name, value })),
    ];
    env.push({ name: 'AGENTPLANE_DATABASE_PASSWORD', valueFrom: { secretKeyRef: { name: names.databaseSecret, key: 'password' } } });
    // Kubernetes expands $(VAR) of an earlier variable: the password never sits in the Deployment
    env.push({ name: 'DATABASE_URL', value: `postgresql://agentplane:$(AGENTPLANE_DATABASE_PASSWORD)@${names.database}:${DATABASE_PORT}/agentplane` });
    const main = withoutNulls({
      name: role,
      image,
      ports: [{ name: 'http', containerPort: SERVER_PORT }],
      env,
      envFrom: deployment.secrets.length > 0 ? [{ secretRef: { name: names.secrets } }] : undefined,
      resources: res,
      volumeMounts: spec.volume_mounts,
      securityContext: restrictedSecurityContext(null),
      readinessProbe: { httpGet: { path: '/ok', port: 'http' }, periodSeconds: 5 },
      livenessProbe: { httpGet: { path: '/ok', port: 'http' }, initialDelaySeconds: 30, periodSeconds: 10 },
      // the server stops listening on SIGTERM: until then the Service may still send it requests
      lifecycle: role === 'server' ? { preStop: { exec: { command: [IMAGE_NODE, '-e', `setTimeout(() => {}, ${PRE_STOP_SECONDS * 1000})`] } } } : undefined,
    });
    const sidecars = (spec.sidecars ?? []).map((c) => container(c));
    // a sidecar with restartPolicy Always is a native sidecar (an init container that keeps
    // running, Kubernetes ≥ 1.29); one without runs beside the main container
    const nativeSidecars = sidecars.filter((c) => c.restartPolicy === 'Always');
    const plainSidecars = sidecars.filter((c) => c.restartPolicy !== 'Always');
    const initContainers = [...(spec.init_containers ?? []).map((c) => container(c)), ...nativeSidecars];
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: annotated(name, role),
      spec: {
        ...(replicas === null ? {} : { replicas }),
        selector: { matchLabels: selectorOf(role) },
        // a new pod is ready before an old one goes: replicas share the database, so old and new serve side by side
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        template: {
          metadata: { labels: { ...labelsOf(role), 'agentplane.dev/revision-id': revision.id }, ...annotationsField },
          spec: withoutNulls({
            // the namespace's service account (the operator's), with no API token: a tenant's pod talks to no cluster API
            automountServiceAccountToken: false,
            securityContext: RESTRICTED_POD_CONTEXT,
            terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
            imagePullSecrets: spec.image_pull_secrets,
            volumes: spec.volumes,
            initContainers: initContainers.length ? initContainers : undefined,
            containers: [main, ...plainSidecars],
          }),
        },
      },
    };
  };

  /** The workload, and its HPA and PodDisruptionBudget when it has them. */
  const scaled = (role: 'server' | 'queue', name: string, min: number, max: number | null | undefined, res: ReturnType<typeof resources>) => {
    const hpa = autoscaler(name, min, max, metadata(name, role));
    const pdb = min >= 2 ? disruptionBudget(metadata(name, role), selectorOf(role)) : null;
    return [workload(role, name, hpa ? null : min, res), hpa, pdb].filter((m): m is Manifest => m !== null);
  };
  const serverReplicas = spec.min_scale ?? 1;
  manifests.push(...scaled('server', names.server, serverReplicas, spec.max_scale, resources(spec.cpu, spec.cpu_limit, spec.memory_mb, spec.memory_limit_mb)));
  manifests.push({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: annotated(names.server, 'server'),
    spec: { selector: selectorOf('server'), ports: [{ name: 'http', port: SERVER_PORT, targetPort: 'http' }] },
  });

  if (hasQueue(spec)) {
    // queue_* default to the main service's values (upstream's rule); limits to 2x their request
    const queueCpu = spec.queue_cpu ?? spec.cpu;
    const queueMemory = spec.queue_memory_mb ?? spec.memory_mb;
    const queueReplicas = spec.queue_min_scale ?? serverReplicas;
    const queueResources = resources(queueCpu, spec.queue_cpu_limit, queueMemory, spec.queue_memory_limit_mb);
    manifests.push(...scaled('queue', names.queue, queueReplicas, spec.queue_max_scale ?? spec.max_scale, queueResources));
  }
  return { ok: true, namespace, manifests };
}

/** An HPA on CPU between the replicas and `max`, when `max` allows more (HPAs cannot scale to zero). */
function autoscaler(target: string, replicas: number, max: number | null | undefined, metadata: Manifest['metadata']): Manifest | null {
  if (!set(max) || max <= Math.max(1, replicas)) return null;
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata,
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
      minReplicas: Math.max(1, replicas),
      maxReplicas: max,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 75 } } }],
    },
  };
}

/** At most one pod of a workload of two or more replicas down at a time for a drain or an upgrade of its node. */
function disruptionBudget(metadata: Manifest['metadata'], selector: Record<string, string>): Manifest {
  return { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata, spec: { maxUnavailable: 1, selector: { matchLabels: selector } } };
}

/** An init container or sidecar as admitted (the seed's container fields), under the restricted profile. */
function container(c: AdmittedContainer): Record<string, unknown> & { restartPolicy?: string } {
  return { ...c, securityContext: restrictedSecurityContext(c.securityContext) };
}

function databaseManifests(
  input: RenderInput,
  spec: AdmittedSpec,
  names: ReturnType<typeof objectNames>,
  namespace: string,
  metadata: (name: string, component: string) => Manifest['metadata'],
  selector: Record<string, string>,
): Manifest[] {
  const args = set(spec.db_max_connections) ? ['-c', `max_connections=${spec.db_max_connections}`] : [];
  return [
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: metadata(names.databaseSecret, 'database'),
      type: 'Opaque',
      stringData: { password: input.databasePassword },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: metadata(names.database, 'database'),
      spec: { clusterIP: 'None', selector, ports: [{ name: 'postgres', port: DATABASE_PORT, targetPort: 'postgres' }] },
    },
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: metadata(names.database, 'database'),
      spec: {
        serviceName: names.database,
        replicas: 1,
        selector: { matchLabels: selector },
        template: {
          metadata: { labels: metadata(names.database, 'database').labels },
          spec: {
            automountServiceAccountToken: false,
            // the official image's postgres user; the volume made writable for it
            securityContext: { ...RESTRICTED_POD_CONTEXT, fsGroup: POSTGRES_UID },
            containers: [
              {
                name: 'postgres',
                image: input.postgresImage,
                args: args.length ? args : undefined,
                ports: [{ name: 'postgres', containerPort: DATABASE_PORT }],
                env: [
                  { name: 'POSTGRES_USER', value: 'agentplane' },
                  { name: 'POSTGRES_DB', value: 'agentplane' },
                  { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: names.databaseSecret, key: 'password' } } },
                  // the volume's root holds lost+found on many storage classes; initdb wants an empty directory
                  { name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' },
                ],
                resources: resources(spec.db_cpu, spec.db_cpu_limit, spec.db_memory_mb, spec.db_memory_limit_mb),
                volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
                readinessProbe: { exec: { command: ['pg_isready', '-U', 'agentplane'] }, periodSeconds: 5 },
                securityContext: restrictedSecurityContext({ runAsUser: POSTGRES_UID, runAsGroup: POSTGRES_UID }),
              },
            ].map(withoutNulls),
          },
        },
        volumeClaimTemplates: [
          {
            // labelled like the rest, so a delete by the deployment's label finds the claims too
            metadata: { name: 'data', labels: metadata(names.database, 'database').labels },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: `${spec.db_storage_gi ?? DEFAULT_DB_STORAGE_GI}Gi` } } },
          },
        ],
      },
    },
  ];
}
