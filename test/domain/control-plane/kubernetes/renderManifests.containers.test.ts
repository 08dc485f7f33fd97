// The renderer: every field of every resource_spec group lands where it should in the
// manifests, the manifests pass the Kubernetes schemas, and what cannot be honoured is refused
// naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import YAML from 'yaml';
import { renderManifests, withoutNulls, type Manifest, type RenderInput } from '../../../../src/domain/control-plane/kubernetes/renderManifests.ts';
import { manifestsAsYaml } from '../../../../src/domain/control-plane/kubernetes/manifestYaml.ts';
import { validateManifests } from '../../../../src/domain/control-plane/kubernetes/validateManifests.ts';
import type { ResourceSpec } from '../../../../generated/control-plane/types.gen.ts';
import { fullResourceSpec } from '../../../containers/fullResourceSpec.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../../../../src/domain/control-plane/workloadPolicy.ts';

const IMAGE = 'registry.example/agent:1.0';
/** The securityContext of every container rendered (Pod Security Standard "restricted"). */
const RESTRICTED = {
  runAsUser: 1000,
  runAsGroup: 1000,
  privileged: false,
  allowPrivilegeEscalation: false,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

/** The deployment the renders are of (references in its resource_spec name what it owns). */
const ID = randomUUID();

function input(spec: ResourceSpec | null, extra: Partial<RenderInput['deployment']['source_config']> = {}): RenderInput {
  return {
    deployment: {
      id: ID,
      name: 'kube-agent',
      secrets: [{ name: 'OPENAI_API_KEY', value: 'sk-secret' }],
      source_config: { resource_spec: spec, listener_config: { k8s_namespace: 'agents' }, ...extra } as RenderInput['deployment']['source_config'],
    },
    revision: { id: randomUUID(), source_revision_config: { image_uri: IMAGE } as RenderInput['revision']['source_revision_config'] },
    defaultNamespace: 'default',
    postgresImage: 'postgres:16',
    databasePassword: 'pw-0123',
    workload: workloadOf(DEFAULT_WORKLOAD_POLICY, EVERY_TENANT),
  };
}

function rendered(spec: ResourceSpec | null, extra = {}) {
  const result = renderManifests(input(spec, extra));
  assert.ok(result.ok, JSON.stringify(result));
  return result;
}

const find = (manifests: Manifest[], kind: string, nameEnd: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name.endsWith(nameEnd));
  assert.ok(found, `${kind} *${nameEnd} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found as Manifest & { spec: any; stringData?: Record<string, string> };
};

test('every group of a full resource_spec lands in the manifests, and they pass the Kubernetes schemas', () => {
  const spec = fullResourceSpec('registry.example/tools:1', ID);
  const { manifests, namespace } = rendered(spec);
  // the operator's namespace, whatever listener_config says (no listener deploys it)
  assert.equal(namespace, 'default');
  assert.deepEqual(validateManifests(manifests), []);
  for (const m of manifests) {
    assert.equal(m.metadata.namespace, 'default', `${m.kind} namespace`);
    assert.equal(m.metadata.labels?.team, 'agents', `${m.kind} labels`);
    assert.equal(m.metadata.labels?.tier, 'test');
  }
  // the user's annotations on the workloads and the server's Service only: never on a Secret or the database
  assert.deepEqual(
    manifests
      .filter((m) => m.metadata.annotations?.['example.com/owner'] === 'kube-test')
      .map((m) => `${m.kind}/${m.metadata.name.replace(/^agentplane-[^-]+(-[^-]+){4}/, '')}`),
    ['Deployment/', 'Service/', 'Deployment/-queue'],
  );

  // main service: replicas, HPA, requests/limits, pod extras
  const serverName = find(manifests, 'Deployment', '').metadata.name;
  const server = find(manifests, 'Deployment', '').spec;
  // the HPA owns the count (max_scale 3 > min_scale 1): a replicas field would reset it on each apply
  assert.equal(server.replicas, undefined);
  assert.deepEqual(server.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
  assert.equal(server.template.spec.terminationGracePeriodSeconds, 30);
  assert.deepEqual(server.template.spec.containers[0].lifecycle.preStop.exec.command, ['/usr/local/bin/node', '-e', 'setTimeout(() => {}, 5000)']);
  assert.equal(manifests.filter((m) => m.kind === 'PodDisruptionBudget').length, 0, 'one replica at least: no budget');
  const pod = server.template.spec;
  assert.equal(server.template.metadata.labels.team, 'agents');
  assert.equal(server.template.metadata.annotations['example.com/owner'], 'kube-test');
  // the namespace's service account, without an API token
  assert.equal(pod.serviceAccountName, undefined);
  assert.equal(pod.automountServiceAccountToken, false);
  assert.deepEqual(pod.imagePullSecrets, [{ name: `agentplane-${ID}-registry` }]);
  assert.deepEqual(pod.volumes, spec.volumes);
  const main = pod.containers[0];
  assert.equal(main.image, IMAGE);
  assert.deepEqual(main.resources, { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } });
  assert.deepEqual(main.volumeMounts, withoutNulls(spec.volume_mounts));
  assert.deepEqual(main.envFrom, [{ secretRef: { name: find(manifests, 'Secret', '-secrets').metadata.name } }]);
  assert.equal(main.env.find((e: any) => e.name === 'AGENTPLANE_ROLE').value, 'server');
  assert.match(
    main.env.find((e: any) => e.name === 'DATABASE_URL').value,
    /^postgresql:\/\/agentplane:\$\(AGENTPLANE_DATABASE_PASSWORD\)@agentplane-.*-db:5432\/agentplane$/,
  );
  // init containers and sidecars as given (every container field of the seed), under the restricted profile
  const restricted = (c: object) => ({ ...c, securityContext: RESTRICTED });
  assert.deepEqual(pod.initContainers, withoutNulls(spec.init_containers)!.map(restricted));
  assert.deepEqual(pod.containers.slice(1), withoutNulls(spec.sidecars)!.map(restricted));
  assert.deepEqual(main.securityContext, RESTRICTED);
  const serverHpa = manifests.find((m) => m.kind === 'HorizontalPodAutoscaler' && m.metadata.name === serverName) as any;
  assert.deepEqual([serverHpa.spec.minReplicas, serverHpa.spec.maxReplicas, serverHpa.spec.scaleTargetRef.kind], [1, 3, 'Deployment']);

  // queue workers: the same image in the queue role, with the queue_* fields
  const queue = find(manifests, 'Deployment', '-queue').spec;
  assert.equal(queue.replicas, undefined);
  const worker = queue.template.spec.containers[0];
  assert.equal(worker.env.find((e: any) => e.name === 'AGENTPLANE_ROLE').value, 'queue');
  assert.deepEqual(worker.resources, { requests: { cpu: '200m', memory: '48Mi' }, limits: { cpu: '400m', memory: '96Mi' } });
  const queueHpa = find(manifests, 'HorizontalPodAutoscaler', '-queue').spec;
  assert.deepEqual([queueHpa.minReplicas, queueHpa.maxReplicas], [1, 4]);

  // the deployment's secrets, as environment variables
  assert.deepEqual(find(manifests, 'Secret', '-secrets').stringData, { OPENAI_API_KEY: 'sk-secret' });

  // database: StatefulSet with a PVC of db_storage_gi, max_connections, db_* resources
  const db = find(manifests, 'StatefulSet', '-db').spec;
  assert.equal(db.volumeClaimTemplates[0].spec.resources.requests.storage, '7Gi');
  const postgres = db.template.spec.containers[0];
  assert.deepEqual(postgres.securityContext, { ...RESTRICTED, runAsUser: 999, runAsGroup: 999 });
  assert.deepEqual(db.template.spec.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, fsGroup: 999 });
  for (const m of manifests.filter((m) => m.kind === 'Deployment'))
    assert.deepEqual((m as any).spec.template.spec.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } }, m.metadata.name);
  assert.deepEqual(postgres.args, ['-c', 'max_connections=150']);
  assert.deepEqual(postgres.resources, { requests: { cpu: '500m', memory: '256Mi' }, limits: { cpu: '1000m', memory: '512Mi' } });
  assert.deepEqual(find(manifests, 'Secret', '-db-auth').stringData, { password: 'pw-0123' });
  assert.equal(find(manifests, 'Service', '-db').spec.clusterIP, 'None');
  assert.equal((manifests.find((m) => m.kind === 'Service' && m.metadata.name === serverName) as any).spec.ports[0].port, 8000);

  // orchestrator and executor: no such process in agentplane; said on the objects
  assert.match(server.template.metadata.annotations['agentplane.dev/ignored-resource-fields'], /^orchestrator_cpu,.*executor_memory_limit_mb$/);
});

test('limits default to twice their request; queue fields default to the main service; one replica has its database too', () => {
  const { manifests } = rendered({ cpu: 1, memory_mb: 512 });
  const main = find(manifests, 'Deployment', '').spec.template.spec.containers[0];
  assert.deepEqual(main.resources, { requests: { cpu: '1000m', memory: '512Mi' }, limits: { cpu: '2000m', memory: '1024Mi' } });
  assert.equal(
    manifests.some((m) => m.kind === 'HorizontalPodAutoscaler' || m.metadata.name.endsWith('-queue')),
    false,
  );
  // the threads outlive the pod (a new revision, a reschedule), and scaling later moves nothing
  assert.ok(manifests.some((m) => m.kind === 'StatefulSet'));
  assert.match(main.env.find((e: any) => e.name === 'DATABASE_URL').value, /@agentplane-[0-9a-f-]+-db:5432\/agentplane$/);
  const scaled = rendered({ cpu: 1, memory_mb: 512, max_scale: 3 }).manifests;
  const database = (all: Manifest[]) => JSON.stringify(find(all, 'StatefulSet', '-db').spec).replaceAll(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'ID');
  assert.equal(database(scaled), database(manifests), 'a scale change renders the same database');

  const queued = rendered({ cpu: 1, memory_mb: 512, min_scale: 2, queue_max_scale: 5 }).manifests;
  const worker = find(queued, 'Deployment', '-queue').spec;
  assert.equal(worker.replicas, undefined, 'the queue HPA owns it');
  // two replicas of the server and no HPA: a fixed count, and a budget that keeps one up through a node drain
  assert.equal(find(queued, 'Deployment', '').spec.replicas, 2);
  assert.equal(
    queued
      .filter((m) => m.kind === 'HorizontalPodAutoscaler')
      .map((m) => m.metadata.name)
      .join(),
    worker.selector.matchLabels['app.kubernetes.io/instance'] + '-queue',
  );
  assert.deepEqual(
    queued.filter((m) => m.kind === 'PodDisruptionBudget').map((m) => [m.metadata.name, (m as any).spec]),
    [
      [find(queued, 'Deployment', '').metadata.name, { maxUnavailable: 1, selector: find(queued, 'Deployment', '').spec.selector }],
      [find(queued, 'Deployment', '-queue').metadata.name, { maxUnavailable: 1, selector: worker.selector }],
    ],
  );
  assert.deepEqual(validateManifests(queued), []);
  assert.deepEqual(worker.template.spec.containers[0].resources, main.resources);
  assert.ok(
    queued.some((m) => m.kind === 'StatefulSet'),
    'queue workers share a database with the server',
  );
  assert.equal(find(queued, 'StatefulSet', '-db').spec.volumeClaimTemplates[0].spec.resources.requests.storage, '10Gi');
});

test('a sidecar with restartPolicy Always is a native sidecar (an init container that keeps running)', () => {
  const { manifests } = rendered({ sidecars: [{ name: 'proxy', image: 'proxy:1', restartPolicy: 'Always' }] });
  // the image in full: a node's runtime never resolves a short name of its own
  const pod = find(manifests, 'Deployment', '').spec.template.spec;
  assert.deepEqual(pod.initContainers, [{ name: 'proxy', image: 'docker.io/library/proxy:1', restartPolicy: 'Always', securityContext: RESTRICTED }]);
  assert.equal(pod.containers.length, 1);
  assert.deepEqual(validateManifests(manifests), []);
});

test('no namespace in listener_config: the configured default', () => {
  assert.equal(rendered({}, { listener_config: null }).namespace, 'default');
});

test('redis_* fields are refused, each named; a revision without an image cannot be rendered', () => {
  const result = renderManifests(input({ redis_cpu: 0.5, redis_memory_mb: 256 }));
  assert.equal(result.ok, false);
  assert.deepEqual(!result.ok && result.refused.map((r) => r.field), ['redis_cpu', 'redis_memory_mb']);
  assert.match(!result.ok ? result.refused[0].message : '', /resource_spec\.redis_cpu .*no Redis/);
  const noImage = input({});
  noImage.revision.source_revision_config = { image_uri: null } as never;
  const refused = renderManifests(noImage);
  assert.deepEqual(!refused.ok && refused.refused.map((r) => r.field), ['image_uri']);
});

test('a value Kubernetes would refuse is refused by the allowlist, naming the field; the schema check names the object and the field', () => {
  const spec = fullResourceSpec('registry.example/tools:1', ID);
  spec.init_containers![0].resources = { limits: { cpu: 'lots' } };
  spec.volumes![0] = { name: 'shared', emptyDir: { sizeLimit: ['not', 'a', 'quantity'] } };
  const refused = renderManifests(input(spec));
  assert.ok(!refused.ok);
  assert.deepEqual(refused.refused.map((r) => r.field).sort(), ['init_containers.0.resources.limits.cpu', 'volumes.0.emptyDir.sizeLimit']);
  // what the renderer made is checked against the Kubernetes schemas all the same
  const { manifests } = rendered(fullResourceSpec('registry.example/tools:1', ID));
  const server = manifests.find((m) => m.kind === 'Deployment' && !m.metadata.name.endsWith('-queue')) as any;
  server.spec.template.spec.initContainers[0].resources.limits.cpu = 'lots';
  server.spec.template.spec.volumes[0].emptyDir.sizeLimit = ['not', 'a', 'quantity'];
  const problems = validateManifests(manifests);
  const found = problems.find((p) => p.object === `Deployment/${server.metadata.name}`);
  assert.ok(found, JSON.stringify(problems));
  assert.match(found.message, /spec\/template\/spec\/initContainers\/0\/resources\/limits\/cpu/);
  assert.match(found.message, /spec\/template\/spec\/volumes\/0\/emptyDir\/sizeLimit/);
});

test('the YAML reads back the same through a YAML 1.1 reader (kubectl, podman): off, yes, 0755 stay strings', () => {
  const ambiguous = ['off', 'yes', 'no', 'on', 'y', 'n', '0755', '0o17', '1e3', '1_000', '12:30', '~', 'null', 'true', '.inf', '2001-12-14'];
  const spec: ResourceSpec = {
    labels: { enabled: 'yes', mode: '0755', flag: 'off' },
    annotations: { 'example.com/enabled': 'on', 'example.com/mode': '0755', 'example.com/when': '12:30' },
    sidecars: [{ name: 'proxy', image: 'proxy:1', env: ambiguous.map((value, i) => ({ name: `V${i}`, value })) }],
  };
  const given = input(spec);
  given.deployment.secrets = [{ name: 'FEATURE', value: 'off' }];
  const result = renderManifests(given);
  assert.ok(result.ok, JSON.stringify(result));
  const yaml = manifestsAsYaml(result.manifests);
  for (const version of ['1.1', '1.2'] as const) {
    const read = YAML.parseAllDocuments(yaml, { version }).map((d) => d.toJS());
    assert.deepEqual(read, result.manifests, `YAML ${version}`);
    assert.deepEqual(validateManifests(read), [], `YAML ${version}`);
  }
  // among them the server's own AGENTPLANE_CONTROL_PLANE=off
  assert.match(yaml, /value: "off"/);
});
