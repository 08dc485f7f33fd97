// What a tenant's deployment may run (issue 83), in process, as a hostile tenant would try it:
// another deployment's build by its reserved name, this machine's images, a namespace that is a
// prefix of an allowed one, a CSI driver that reads another tenant's secrets, 10,000 replicas,
// megabytes of annotations, and the annotations the container runtimes act on.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, admitImage, workloadOf, type WorkloadPolicy } from '../../../src/domain/control-plane/workloadPolicy.ts';
import { admitResourceSpec } from '../../../src/domain/control-plane/kubernetes/allowlist/resourceSpec.ts';
import { loadConfig } from '../../../src/runtime/config.ts';

const A = randomUUID();
const B = randomUUID();
const TENANT_A = randomUUID();
const TENANT_B = randomUUID();
const policy = (change: Partial<WorkloadPolicy>): WorkloadPolicy => ({ ...DEFAULT_WORKLOAD_POLICY, ...change });
const DEFAULTS = workloadOf(DEFAULT_WORKLOAD_POLICY, TENANT_A);
const admit = (spec: unknown, workload = DEFAULTS, deploymentId: string | null = A) => admitResourceSpec(spec, { deploymentId, workload });
const problem = (admission: ReturnType<typeof admit>) =>
  admission.ok ? 'admitted' : admission.problems.map((p) => `${p.loc.slice(2).join('.')}: ${p.msg}`).join(' ');

describe('images a deployment may run', () => {
  it("never another deployment's build, in any spelling; its own, yes", () => {
    for (const text of [
      `localhost/agentplane-deployment-${B}:rev`,
      `LOCALHOST/agentplane-deployment-${B}:rev`,
      `localhost/agentplane-deployment-${B}`,
      `localhost/agentplane-deployment-${B}@sha256:${'a'.repeat(64)}`,
    ]) {
      const refused = admitImage(text, A, DEFAULTS);
      assert.ok(!refused.ok && /reserved/.test(refused.msg), text);
    }
    // even where the operator opened this machine's storage to the tenant
    const local = workloadOf(policy({ imageNamespaces: { [EVERY_TENANT]: ['localhost'] } }), TENANT_A);
    assert.equal(admitImage(`localhost/agentplane-deployment-${B}:rev`, A, local).ok, false);
    // before it exists, a deployment owns no build
    assert.equal(admitImage(`localhost/agentplane-deployment-${A}:rev`, null, local).ok, false);
    assert.deepEqual(admitImage(`localhost/agentplane-deployment-${A}:rev`, A, DEFAULTS), { ok: true, image: `localhost/agentplane-deployment-${A}:rev` });
  });

  it('by default any registry, in full, and never this machine’s storage, an id or a prefix of one', () => {
    assert.deepEqual(admitImage('node:22', A, DEFAULTS), { ok: true, image: 'docker.io/library/node:22' });
    assert.deepEqual(admitImage('ghcr.io/acme/agent:1', A, DEFAULTS), { ok: true, image: 'ghcr.io/acme/agent:1' });
    for (const text of ['localhost/agent:1', 'localhost/agentplane-test-node:1', 'abcd', `sha256:${'e'.repeat(64)}`, '-v', '--authfile=/etc/shadow']) {
      const refused = admitImage(text, A, DEFAULTS);
      assert.ok(!refused.ok, text);
    }
    assert.match((admitImage('localhost/agent:1', A, DEFAULTS) as { msg: string }).msg, /AGENTPLANE_IMAGE_NAMESPACES/);
  });

  it('by default never a registry on this machine, in any spelling of its address; one the operator names, yes', () => {
    // a registry on loopback is the operator's: a kind cluster's localhost:5001 holds every tenant's pushed images
    for (const registry of [
      'localhost:5000',
      'LOCALHOST:5001',
      'registry.localhost',
      '127.0.0.1',
      '127.0.0.1:5000',
      '127.9.9.9:5000',
      '127.1:5000',
      '2130706433:5000',
      '0x7f.1:5000',
      '0177.0.0.1:5000',
      '0.0.0.0:5000',
      '[::1]:5000',
      '[::1]',
      '[0:0:0:0:0:0:0:1]:5000',
      '[::]:5000',
      '[::ffff:7f00:1]:5000',
    ]) {
      const refused = admitImage(`${registry}/agentplane-deployment-${B}:rev`, A, DEFAULTS);
      assert.ok(!refused.ok && /AGENTPLANE_IMAGE_NAMESPACES/.test(refused.msg), registry);
    }
    for (const registry of ['10.0.0.5:5000', '128.0.0.1', '[2001:db8::1]:5000', 'localhost.example.com', 'registry.internal:5000'])
      assert.equal(admitImage(`${registry}/team/agent:1`, A, DEFAULTS).ok, true, registry);
    const opened = workloadOf(policy({ imageNamespaces: { [EVERY_TENANT]: ['localhost:5001/team-a'] } }), TENANT_A);
    assert.equal(admitImage('localhost:5001/team-a/agent:1', A, opened).ok, true);
    assert.equal(admitImage('localhost:5001/team-b/agent:1', A, opened).ok, false);
  });

  it("a tenant's namespaces: its own and every tenant's, at a path boundary", () => {
    const settings = policy({ imageNamespaces: { [EVERY_TENANT]: ['docker.io/library'], [TENANT_A]: ['registry.internal:5000/team-a'] } });
    const a = workloadOf(settings, TENANT_A.toUpperCase());
    const b = workloadOf(settings, TENANT_B);
    assert.equal(admitImage('node:22', A, a).ok, true);
    assert.equal(admitImage('node:22', B, b).ok, true);
    assert.equal(admitImage('registry.internal:5000/team-a/agent:1', A, a).ok, true);
    assert.equal(admitImage('registry.internal:5000/team-a/sub/agent:1', A, a).ok, true);
    assert.equal(admitImage('REGISTRY.internal:5000/team-a/agent:1', A, a).ok, true);
    for (const [text, workload] of [
      ['registry.internal:5000/team-a/agent:1', b],
      ['registry.internal:5000/team-ab/agent:1', a],
      ['registry.internal/team-a/agent:1', a],
      ['acme/agent:1', a],
      ['ghcr.io/acme/agent:1', a],
    ] as const)
      assert.equal(admitImage(text, A, workload).ok, false, text);
  });

  it('the same rules for sidecars and init containers, which are rendered in full', () => {
    for (const group of ['sidecars', 'init_containers']) {
      for (const image of [`localhost/agentplane-deployment-${B}:rev`, 'abcd', '-v', `sha256:${'e'.repeat(64)}`]) {
        const refused = admit({ [group]: [{ name: 'side', image }] });
        assert.match(problem(refused), new RegExp(`^${group}\\.0\\.image: `), `${group} ${image}`);
      }
      const admitted = admit({ [group]: [{ name: 'side', image: 'tools:1' }] });
      assert.ok(admitted.ok);
      assert.equal((admitted.spec[group as 'sidecars'] ?? [])[0]!.image, 'docker.io/library/tools:1');
    }
  });
});

describe('volumes, replicas and sizes', () => {
  it('CSI drivers: only those the operator lists, none by default', () => {
    const csi = (driver: string) => ({ volumes: [{ name: 'v', csi: { driver, volumeAttributes: { secretProviderClass: 'tenant-b' } } }] });
    assert.match(problem(admit(csi('secrets-store.csi.k8s.io'))), /volumes\.0\.csi\.driver: .*AGENTPLANE_CSI_DRIVERS; allowed: none/);
    const listed = workloadOf(policy({ csiDrivers: ['ebs.csi.aws.com'] }), TENANT_A);
    assert.ok(admit(csi('ebs.csi.aws.com'), listed).ok);
    assert.match(problem(admit(csi('secrets-store.csi.k8s.io'), listed)), /allowed: ebs\.csi\.aws\.com/);
  });

  it('replicas: every scale field up to the operator’s bound (10 by default)', () => {
    for (const field of ['min_scale', 'max_scale', 'queue_min_scale', 'queue_max_scale', 'orchestrator_min_scale', 'orchestrator_max_scale']) {
      assert.match(problem(admit({ [field]: 10_000 })), new RegExp(`^${field}: .*0 to 10.*AGENTPLANE_MAX_REPLICAS`), field);
      assert.ok(admit({ [field]: 10 }).ok, field);
    }
    assert.ok(admit({ min_scale: 50, max_scale: 50 }, workloadOf(policy({ maxReplicas: 50 }), TENANT_A)).ok);
  });

  it('annotations and the whole resource_spec: bounded in bytes, each bound named', () => {
    // the 60 annotations of 15 KiB
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`example.com/a${i}`, 'x'.repeat(15 * 1024)]));
    assert.match(problem(admit({ annotations: many })), /^: .*AGENTPLANE_MAX_RESOURCE_SPEC_BYTES/);
    const some = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`example.com/a${i}`, 'x'.repeat(15 * 1024)]));
    assert.match(
      problem(admit({ annotations: some })),
      /^annotations: the annotations hold \d+ bytes; the operator allows 262144 \(AGENTPLANE_MAX_ANNOTATION_BYTES\)/,
    );
    const raised = workloadOf(policy({ maxAnnotationBytes: 400 * 1024 }), TENANT_A);
    assert.ok(admit({ annotations: some }, raised).ok);
  });
});

describe('annotations a container runtime acts on', () => {
  // each key below is read by a runtime in the chain, per its own source:
  // - runc libcontainer/cgroups/systemd/common.go initSystemdProps, crun src/libcrun/cgroup-systemd.c
  //   SYSTEMD_PROPERTY_PREFIX: `org.systemd.property.<Name>` becomes a property of the scope (TasksMax, MemoryMax, CPUQuota)
  // - runc features.go and cri-o pkg/annotations/annotations.go: "potentially unsafe" `bundle`,
  //   `org.systemd.property.`, `org.criu.config` (a CRIU configuration file), crun's `run.oci.`,
  //   `module.wasm.image/variant`, `io.kubernetes.cri.container-type`
  // - crun src/libcrun/container.c: run.oci.seccomp_fail_unknown_syscall, run.oci.seccomp_bpf_data, run.oci.keep_original_groups
  // - cri-o pkg/annotations/annotations.go: io.kubernetes.cri-o.{Devices,ShmSize,UnifiedCgroup,userns-mode,…},
  //   cpu-quota.crio.io, seccomp-profile.kubernetes.cri-o.io, io.containers.trace-syscall
  // - podman libpod/define/annotations.go: io.podman.annotations.{userns,ulimit,privileged,seccomp,apparmor,init.container.type};
  //   pkg/util/kube.go: volume.podman.io/{driver,device,mount-options}
  const RUNTIME_KEYS = [
    'org.systemd.property.TasksMax',
    'org.systemd.property.MemoryMax',
    'org.systemd.property.CPUQuota',
    'org.criu.config',
    'bundle',
    'module.wasm.image/variant',
    'io.kubernetes.cri.container-type',
    'run.oci.seccomp_fail_unknown_syscall',
    'run.oci.seccomp_bpf_data',
    'run.oci.keep_original_groups',
    'io.kubernetes.cri-o.Devices',
    'io.kubernetes.cri-o.UnifiedCgroup',
    'io.kubernetes.cri-o.userns-mode',
    'cpu-quota.crio.io',
    'seccomp-profile.kubernetes.cri-o.io/POD',
    'io.containers.trace-syscall',
    'io.podman.annotations.userns',
    'io.podman.annotations.ulimit',
    'io.podman.annotations.init.container.type',
    'volume.podman.io/mount-options',
    'io.katacontainers.config.hypervisor.path',
    'dev.gvisor.spec.mount.x.type',
  ];

  it('are reserved in any letter case', () => {
    for (const key of RUNTIME_KEYS)
      fc.assert(
        fc.property(fc.mixedCase(fc.constant(key)), (variant) => {
          const admitted = admit({ annotations: { [variant]: '1' } });
          assert.ok(!admitted.ok, variant);
          assert.match(admitted.problems[0]!.msg, /reserved/, variant);
        }),
        { numRuns: 10 },
      );
    assert.ok(admit({ annotations: { 'example.com/bundle': 'x', 'prometheus.io/scrape': 'true' } }).ok);
  });
});

it('the settings’ defaults are the policy’s defaults', () => {
  assert.deepEqual(loadConfig([], {}).workloadPolicy, DEFAULT_WORKLOAD_POLICY);
});
