// The resource_spec allowlist (src/domain/control-plane/kubernetes/allowlist/), in process, as an
// attacker would send it: every known key of every free-form object in other letter cases
// (podman kube play reads keys case-insensitively, so `SecretKeyRef` was `secretKeyRef` to it),
// beside the checked spelling too; keys nobody knows at every level; reserved annotation and
// label keys in any case; references to what another deployment owns. Each is refused naming
// its path, and what is admitted holds nothing the allowlist does not name. The renderer
// refuses a stored record the same way, and every container it renders is non-root, group
// non-zero, RuntimeDefault seccomp.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { admitResourceSpec } from '../../../../src/domain/control-plane/kubernetes/allowlist/resourceSpec.ts';
import { renderManifests, type Manifest } from '../../../../src/domain/control-plane/kubernetes/renderManifests.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../../../../src/domain/control-plane/workloadPolicy.ts';

const ID = '6f1c2a4e-8b3d-4f5a-9c7e-1d2b3a4c5e6f';
const OTHER = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const OWN_SECRET = `agentplane-${ID}-secrets`;
// the CSI driver the reference cases name, allowed as an operator would (none is by default: workloadPolicy.test.ts)
const WORKLOAD = workloadOf({ ...DEFAULT_WORKLOAD_POLICY, csiDrivers: ['x.example.com'] }, EVERY_TENANT);
const admit = (spec: unknown, deploymentId: string | null = ID) => admitResourceSpec(spec, { deploymentId, workload: WORKLOAD });
const sidecar = (extra: object) => ({ sidecars: [{ name: 'side', image: 'tools:1', ...extra }] });
const path = (loc: (string | number)[]) => loc.slice(2).join('.');

/** Where a known key sits in a free-form object, as a spec holding `key: value` there, and the path the key is at. */
const POSITIONS: { key: string; value: unknown; at: string; spec: (key: string, value: unknown) => object }[] = [
  ...['secretKeyRef', 'configMapKeyRef', 'fieldRef', 'resourceFieldRef'].map((key) => ({
    key,
    value: { name: OWN_SECRET, key: 'K' },
    at: 'sidecars.0.env.0.valueFrom',
    spec: (k: string, v: unknown) => sidecar({ env: [{ name: 'X', valueFrom: { [k]: v } }] }),
  })),
  ...['secretRef', 'configMapRef'].map((key) => ({
    key,
    value: { name: OWN_SECRET },
    at: 'init_containers.0.envFrom.0',
    spec: (k: string, v: unknown) => ({ init_containers: [{ name: 'init', image: 'tools:1', envFrom: [{ [k]: v }] }] }),
  })),
  ...['name', 'key', 'optional'].map((key) => ({
    key,
    value: 'x',
    at: 'sidecars.0.env.0.valueFrom.secretKeyRef',
    spec: (k: string, v: unknown) => sidecar({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: OWN_SECRET, key: 'K', [k]: v } } }] }),
  })),
  ...['privileged', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'allowPrivilegeEscalation', 'capabilities', 'seccompProfile', 'procMount', 'seLinuxOptions'].map(
    (key) => ({ key, value: true, at: 'sidecars.0.securityContext', spec: (k: string, v: unknown) => sidecar({ securityContext: { [k]: v } }) }),
  ),
  ...['add', 'drop'].map((key) => ({
    key,
    value: ['SYS_ADMIN'],
    at: 'sidecars.0.securityContext.capabilities',
    spec: (k: string, v: unknown) => sidecar({ securityContext: { capabilities: { [k]: v } } }),
  })),
  ...['secret', 'configMap', 'emptyDir', 'persistentVolumeClaim', 'projected', 'downwardAPI', 'csi'].map((key) => ({
    key,
    value: {},
    at: 'volumes.0',
    spec: (k: string, v: unknown) => ({ volumes: [{ name: 'v', [k]: v }] }),
  })),
  ...['secret', 'configMap', 'downwardAPI'].map((key) => ({
    key,
    value: { name: OWN_SECRET },
    at: 'volumes.0.projected.sources.0',
    spec: (k: string, v: unknown) => ({ volumes: [{ name: 'p', projected: { sources: [{ [k]: v }] } }] }),
  })),
  ...['claimName', 'readOnly'].map((key) => ({
    key,
    value: 'x',
    at: 'volumes.0.persistentVolumeClaim',
    spec: (k: string, v: unknown) => ({ volumes: [{ name: 'd', persistentVolumeClaim: { claimName: `agentplane-${ID}-data`, [k]: v } }] }),
  })),
  ...['limits', 'requests'].map((key) => ({ key, value: {}, at: 'sidecars.0.resources', spec: (k: string, v: unknown) => sidecar({ resources: { [k]: v } }) })),
  ...['cpu', 'memory'].map((key) => ({
    key,
    value: '1',
    at: 'sidecars.0.resources.limits',
    spec: (k: string, v: unknown) => sidecar({ resources: { limits: { [k]: v } } }),
  })),
  ...['medium', 'sizeLimit'].map((key) => ({
    key,
    value: '',
    at: 'volumes.0.emptyDir',
    spec: (k: string, v: unknown) => ({ volumes: [{ name: 'e', emptyDir: { [k]: v } }] }),
  })),
];

/** `key` in another letter case. */
const otherCase = (key: string) => fc.mixedCase(fc.constant(key)).filter((k) => k !== key);

describe('resource_spec allowlist', () => {
  it('refuses every known key of a free-form object in any other letter case, naming it', () => {
    for (const { key, value, at, spec } of POSITIONS) {
      fc.assert(
        fc.property(otherCase(key), (variant) => {
          const admitted = admit(spec(variant, value));
          assert.ok(!admitted.ok, `${at}.${variant} was admitted`);
          const problem = admitted.problems.find((p) => path(p.loc) === `${at}.${variant}`);
          assert.ok(problem, `${at}.${variant}: ${JSON.stringify(admitted.problems)}`);
          assert.match(problem.msg, new RegExp(`\`${variant}\` is not \`${key}\``));
        }),
        { numRuns: 20 },
      );
    }
  });

  it('refuses a second spelling beside the checked one (which podman would read last)', () => {
    const spec = sidecar({
      env: [{ name: 'X', valueFrom: { secretKeyRef: { name: OWN_SECRET, key: 'K' }, SecretKeyRef: { name: `agentplane-${OTHER}-secrets`, key: 'K' } } }],
    });
    const admitted = admit(spec);
    assert.ok(!admitted.ok);
    assert.deepEqual(
      admitted.problems.map((p) => path(p.loc)),
      ['sidecars.0.env.0.valueFrom.SecretKeyRef'],
    );
    const doubled = sidecar({ securityContext: { privileged: false, Privileged: true, runAsGroup: 5, RUNASGROUP: 0 } });
    assert.deepEqual((admit(doubled) as { problems: { loc: (string | number)[] }[] }).problems.map((p) => path(p.loc)).sort(), [
      'sidecars.0.securityContext.Privileged',
      'sidecars.0.securityContext.RUNASGROUP',
    ]);
  });

  it('refuses a key nobody knows at any level, and admits nothing it does not name', () => {
    const valid = {
      labels: { team: 'agents' },
      volumes: [{ name: 'shared', emptyDir: {} }],
      volume_mounts: [{ name: 'shared', mountPath: '/shared' }],
      sidecars: [{ name: 'side', image: 'tools:1', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: OWN_SECRET, key: 'K' } } }], securityContext: {} }],
    };
    const places: ((spec: any) => Record<string, unknown>)[] = [
      (s) => s,
      (s) => s.volumes[0],
      (s) => s.volumes[0].emptyDir,
      (s) => s.volume_mounts[0],
      (s) => s.sidecars[0],
      (s) => s.sidecars[0].env[0],
      (s) => s.sidecars[0].env[0].valueFrom,
      (s) => s.sidecars[0].env[0].valueFrom.secretKeyRef,
      (s) => s.sidecars[0].securityContext,
    ];
    const known = new Set(JSON.stringify(admit(valid)).match(/"[^"]+":/g));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: places.length - 1 }), fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue(), (place, key, value) => {
        const spec = structuredClone(valid);
        const target = places[place]!(spec);
        if (Object.hasOwn(target, key)) return;
        Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
        const admitted = admit(spec);
        // a key the allowlist names (a field of the seed: `image`, `value`…) may be admitted, built as its rule says
        if (admitted.ok) for (const k of JSON.stringify(admitted.spec).match(/"[^"]+":/g) ?? []) assert.ok(known.has(k) || k === `${JSON.stringify(key)}:`, k);
        else assert.ok(admitted.problems.length > 0);
      }),
      { numRuns: 300 },
    );
    assert.ok(admit(valid).ok);
  });

  it('refuses reserved annotation and label keys in any letter case', () => {
    const reserved = [
      'seccomp.security.alpha.kubernetes.io/pod',
      'container.seccomp.security.alpha.kubernetes.io/side',
      'container.apparmor.security.beta.kubernetes.io/side',
      'io.podman.annotations.privileged',
      'io.podman.annotations.seccomp/side',
      'io.containers.trace-syscall',
      'run.oci.keep_original_groups',
      'app.kubernetes.io/instance',
      'kubernetes.io/hostname',
      'node.k8s.io/whatever',
      'agentplane.dev/deployment-id',
    ];
    for (const key of reserved)
      fc.assert(
        fc.property(fc.mixedCase(fc.constant(key)), fc.constantFrom('annotations', 'labels'), (variant, field) => {
          const admitted = admit({ [field]: { [variant]: 'unconfined' } });
          assert.ok(!admitted.ok, `${field}.${variant}`);
          assert.equal(path(admitted.problems[0]!.loc), `${field}.${variant}`);
        }),
        { numRuns: 15 },
      );
    assert.ok(admit({ annotations: { 'example.com/owner': 'kube-test', 'prometheus.io/scrape': 'true' }, labels: { team: 'agents' } }).ok);
  });

  it('refuses every reference to what the deployment does not own; admits its own', () => {
    const refs = (name: string) => [
      sidecar({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name, key: 'K' } } }] }),
      sidecar({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name, key: 'K' } } }] }),
      sidecar({ envFrom: [{ secretRef: { name } }] }),
      sidecar({ envFrom: [{ configMapRef: { name } }] }),
      { volumes: [{ name: 's', secret: { secretName: name } }] },
      { volumes: [{ name: 'c', configMap: { name } }] },
      { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: name } }] },
      { volumes: [{ name: 'p', projected: { sources: [{ secret: { name } }] } }] },
      { volumes: [{ name: 'p', projected: { sources: [{ configMap: { name } }] } }] },
      { volumes: [{ name: 'v', csi: { driver: 'x.example.com', nodePublishSecretRef: { name } } }] },
      { image_pull_secrets: [{ name }] },
    ];
    for (const other of [
      `agentplane-${OTHER}-secrets`,
      `data-agentplane-${OTHER}-db-0`,
      `agentplane-${OTHER}-registry`,
      'kube-root-ca.crt',
      'default-token',
      `agentplane-${ID}`,
    ])
      for (const spec of refs(other)) assert.equal(admit(spec).ok, false, JSON.stringify(spec));
    // at create the deployment owns nothing yet
    for (const spec of refs(OWN_SECRET)) assert.equal(admit(spec, null).ok, false, JSON.stringify(spec));
    // its own Secret wherever a Secret is named; its own objects elsewhere
    const own = refs(OWN_SECRET).filter((s) => !/configMap|claimName|image_pull/i.test(JSON.stringify(s)));
    for (const spec of own) assert.equal(admit(spec).ok, true, JSON.stringify(spec));
    for (const spec of refs(`agentplane-${ID}-prompts`).filter((s) => /configMap|claimName|image_pull/i.test(JSON.stringify(s))))
      assert.equal(admit(spec).ok, true, JSON.stringify(spec));
  });

  it('refuses a projected service account token, host paths, nfs, and privilege however it is spelt', () => {
    for (const spec of [
      { volumes: [{ name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] },
      { volumes: [{ name: 'h', hostPath: { path: '/' } }] },
      { volumes: [{ name: 'n', nfs: { server: 'x', path: '/' } }] },
      { hostNetwork: true },
      { service_account_name: 'cluster-admin' },
      sidecar({ securityContext: { privileged: true } }),
      sidecar({ securityContext: { runAsGroup: 0 } }),
      sidecar({ securityContext: { runAsUser: 0 } }),
      sidecar({ securityContext: { windowsOptions: { hostProcess: true } } }),
      sidecar({ securityContext: { seccompProfile: { type: 'Unconfined' } } }),
      sidecar({ securityContext: { seccompProfile: { type: 'Localhost', localhostProfile: '../../etc/x' } } }),
      sidecar({ ports: [{ containerPort: 80, hostPort: 80 }] }),
      sidecar({ name: 'server' }),
      {
        sidecars: [
          { name: 'a', image: 'x' },
          { name: 'a', image: 'y' },
        ],
      },
      { volume_mounts: [{ name: 'nowhere', mountPath: '/x' }] },
      sidecar({ volumeMounts: [{ name: 'v', mountPath: '/x', mountPropagation: 'Bidirectional' }] }),
    ])
      assert.equal(admit(spec).ok, false, JSON.stringify(spec));
  });
});

describe('the renderer', () => {
  const render = (spec: unknown) =>
    renderManifests({
      deployment: { id: ID, name: 'd', secrets: [{ name: 'K', value: 'v' }], source_config: { resource_spec: spec, listener_id: null } as never },
      revision: { id: 'r', source_revision_config: { image_uri: 'img:1' } as never },
      defaultNamespace: 'default',
      postgresImage: 'postgres:16',
      databasePassword: 'pw',
      workload: WORKLOAD,
    });

  it('refuses a stored record the allowlist would refuse (stored before the rule), naming the field', () => {
    const stored = sidecar({ env: [{ name: 'X', valueFrom: { SecretKeyRef: { name: `agentplane-${OTHER}-secrets`, key: 'K' } } }] });
    const rendered = render(stored);
    assert.ok(!rendered.ok);
    assert.deepEqual(
      rendered.refused.map((r) => r.field),
      ['sidecars.0.env.0.valueFrom.SecretKeyRef'],
    );
  });

  it('renders every container non-root, with a group other than 0 and RuntimeDefault seccomp', () => {
    const rendered = render({ ...sidecar({ securityContext: { runAsUser: 2000 } }), init_containers: [{ name: 'init', image: 'tools:1' }] });
    assert.ok(rendered.ok);
    const pods = rendered.manifests.filter((m: Manifest) => m.kind === 'Deployment' || m.kind === 'StatefulSet').map((m) => (m.spec as any).template.spec);
    const containers = pods.flatMap((p) => [...(p.initContainers ?? []), ...p.containers]);
    assert.equal(containers.length, 4);
    for (const c of containers) {
      assert.ok(c.securityContext.runAsUser > 0, c.name);
      assert.ok(c.securityContext.runAsGroup > 0, c.name);
      assert.equal(c.securityContext.runAsNonRoot, true, c.name);
      assert.deepEqual(c.securityContext.seccompProfile, { type: 'RuntimeDefault' }, c.name);
    }
    for (const p of pods) assert.deepEqual(p.securityContext.seccompProfile, { type: 'RuntimeDefault' });
  });
});
