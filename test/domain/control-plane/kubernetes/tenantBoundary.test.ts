// The tenant boundary at the API (docs/control-plane.md, "Tenant boundary"): each rule of
// the Kubernetes "restricted" Pod Security Standard, each secret reference that names
// another deployment's secret, a tenant's namespace or service account, and a custom_url that
// is not http(s) are a 422 naming the field and the rule; nothing is stored. The manifests
// a deployment is shown carry the enforced securityContext.
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { create, dockerBody, json } from '../../../control-plane/support.ts';
import { REFUSED, at, container, naming, where } from '../../../control-plane/boundaryCases.ts';
import { tenantBoundaryProblems } from '../../../../src/domain/control-plane/kubernetes/tenantBoundary.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../../../../src/domain/control-plane/workloadPolicy.ts';

const WORKLOAD = workloadOf(DEFAULT_WORKLOAD_POLICY, EVERY_TENANT);

describe('tenant boundary', () => {
  let server: InProcessApp;
  let victim: any;
  let attacker: any;
  before(async () => {
    server = await areaApp('control-plane');
    victim = await create(server.api, { ...dockerBody('victim'), secrets: [{ name: 'TOKEN', value: 'victim-token' }] });
    attacker = await create(server.api, dockerBody('attacker'));
  });
  after(() => server.close());

  it('refuses each rule with a 422 naming the field, on create and on PATCH, and stores nothing', async () => {
    for (const [what, config, field, rule] of REFUSED) {
      const named = naming(config, victim.id);
      const body = { ...dockerBody(`refused-${what.replace(/\W+/g, '-')}`), source_config: named };
      const created = await json(await server.api('/v2/deployments', { method: 'POST', json: body }), 422);
      const issue = created.detail.find((i: any) => where(i) === at(field));
      assert.ok(issue, `${what}: ${JSON.stringify(created)}`);
      // a field the schema does not know at all is refused by it (hostPath, hostNetwork)
      if (issue.type !== 'extra_forbidden') assert.match(issue.msg, rule, what);
      if (field.startsWith('listener_config')) continue; // immutable: a PATCH says so (400)
      const patched = await json(await server.api(`/v2/deployments/${attacker.id}`, { method: 'PATCH', json: { source_config: named } }), 422);
      assert.ok(
        patched.detail.some((i: any) => where(i) === at(field)),
        `${what} by PATCH: ${JSON.stringify(patched)}`,
      );
    }
    const list = await json(await server.api('/v2/deployments?limit=100'), 200);
    assert.deepEqual(list.resources.map((d: any) => d.name).sort(), ['attacker', 'victim']);
    assert.equal((await json(await server.api(`/v2/deployments/${attacker.id}`), 200)).latest_revision_id, attacker.latest_revision_id);
  });

  it("accepts a reference to the deployment's own Secret, and shows the enforced profile on every container", async () => {
    const own = `agentplane-${attacker.id}-secrets`;
    const spec = {
      sidecars: [
        container({
          env: [{ name: 'X', valueFrom: { secretKeyRef: { name: own, key: 'K' } } }],
          securityContext: { capabilities: { add: ['NET_BIND_SERVICE'] } },
        }),
      ],
      volumes: [{ name: 's', secret: { secretName: own } }],
    };
    const patched = await json(await server.api(`/v2/deployments/${attacker.id}`, { method: 'PATCH', json: { source_config: { resource_spec: spec } } }), 200);
    const shown = await json(await server.api(`/v2/deployments/${attacker.id}/revisions/${patched.latest_revision_id}/manifests`), 200);
    const pod = shown.manifests.find((m: any) => m.kind === 'Deployment').spec.template.spec;
    assert.deepEqual(pod.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    assert.equal(pod.automountServiceAccountToken, false);
    for (const c of pod.containers) {
      assert.equal(c.securityContext.allowPrivilegeEscalation, false, c.name);
      assert.equal(c.securityContext.privileged, false, c.name);
      assert.equal(c.securityContext.runAsNonRoot, true, c.name);
      assert.deepEqual(c.securityContext.capabilities.drop, ['ALL'], c.name);
      assert.deepEqual(c.securityContext.seccompProfile, { type: 'RuntimeDefault' }, c.name);
    }
    assert.deepEqual(pod.containers[1].securityContext.capabilities.add, ['NET_BIND_SERVICE']);
  });
});

describe('the images a tenant runs (issue 83)', () => {
  const KEY_A = `key-a-${randomUUID()}`;
  const KEY_B = `key-b-${randomUUID()}`;
  const TENANT_A = randomUUID();
  const TENANT_B = randomUUID();
  let server: InProcessApp;
  before(async () => {
    server = await areaApp('control-plane', {
      env: {
        AGENTPLANE_API_KEYS: `${KEY_A}:${TENANT_A},${KEY_B}:${TENANT_B}`,
        // every tenant: Docker Hub's official images; tenant A: its own registry namespace too
        AGENTPLANE_IMAGE_NAMESPACES: `docker.io/library;${TENANT_A}=registry.acme.internal/team-a`,
      },
    });
  });
  after(() => server?.close());
  const as =
    (key: string) =>
    (pathname: string, init: RequestInit & { json?: unknown } = {}) =>
      server.api(pathname, { ...init, headers: { 'x-api-key': key } });
  const refusedImage = async (answer: Promise<Response>, rule: RegExp) => {
    const body = await json(await answer, 422);
    const issue = body.detail.find((i: any) => where(i) === 'source_revision_config.image_uri');
    assert.ok(issue, JSON.stringify(body));
    assert.match(issue.msg, rule);
  };

  it("refuses B's build, an option, an image id, a prefix of one and a digest alone, on create and PATCH; stores nothing", async () => {
    const victim = await create(as(KEY_B), { ...dockerBody('victim', 'node:22'), source_config: {} });
    const attacker = await create(as(KEY_A), { ...dockerBody('attacker', 'node:22'), source_config: {} });
    const id = 'f3a1c9d27b4e8a6f0c2d5e7b9a1c3e5f7a9b1d3f5e7c9a1b3d5f7e9a1c3b5d7f';
    const cases: [string, RegExp][] = [
      [`localhost/agentplane-deployment-${victim.id}:${victim.latest_revision_id}`, /reserved/],
      [`LOCALHOST/agentplane-deployment-${victim.id}:${victim.latest_revision_id}`, /reserved/],
      ['--help', /starts with "-"/],
      ['-v', /starts with "-"/],
      ['--authfile=/etc/shadow', /starts with "-"/],
      [id.slice(0, 4), /image id/],
      [id, /image id/],
      [`sha256:${id}`, /image id|digest alone/],
      [`@sha256:${id}`, /digest alone/],
      ['localhost/some-local-image:1', /AGENTPLANE_IMAGE_NAMESPACES/],
    ];
    for (const [image, rule] of cases) {
      await refusedImage(
        as(KEY_A)('/v2/deployments', { method: 'POST', json: { ...dockerBody(`x-${randomUUID().slice(0, 8)}`, image), source_config: {} } }),
        rule,
      );
      await refusedImage(as(KEY_A)(`/v2/deployments/${attacker.id}`, { method: 'PATCH', json: { source_revision_config: { image_uri: image } } }), rule);
    }
    const listed = await json(await as(KEY_A)('/v2/deployments?limit=100'), 200);
    assert.deepEqual(
      listed.resources.map((d: any) => d.id),
      [attacker.id],
    );
    const revisions = await json(await as(KEY_A)(`/v2/deployments/${attacker.id}/revisions`), 200);
    assert.deepEqual(
      revisions.resources.map((r: any) => r.id),
      [attacker.latest_revision_id],
    );
    // its own build, once it exists, a deployment may run
    const own = `localhost/agentplane-deployment-${attacker.id}:${attacker.latest_revision_id}`;
    await json(await as(KEY_A)(`/v2/deployments/${attacker.id}`, { method: 'PATCH', json: { source_revision_config: { image_uri: own } } }), 200);
  });

  it("a registry namespace is the tenant's the operator named: A's is not B's", async () => {
    const image = 'registry.acme.internal/team-a/agent:1';
    await create(as(KEY_A), { ...dockerBody('team-a', image), source_config: {} });
    await refusedImage(
      as(KEY_B)('/v2/deployments', { method: 'POST', json: { ...dockerBody('team-a', image), source_config: {} } }),
      /AGENTPLANE_IMAGE_NAMESPACES; allowed: docker\.io\/library\)/,
    );
    await refusedImage(
      as(KEY_A)('/v2/deployments', { method: 'POST', json: { ...dockerBody('team-ab', 'registry.acme.internal/team-ab/agent:1'), source_config: {} } }),
      /no registry namespace/,
    );
    // and what the manifests render is the image in full
    const hub = await create(as(KEY_B), { ...dockerBody('hub', 'node:22'), source_config: {} });
    const shown = await json(await as(KEY_B)(`/v2/deployments/${hub.id}/revisions/${hub.latest_revision_id}/manifests`), 200);
    assert.equal(shown.manifests.find((m: any) => m.kind === 'Deployment').spec.template.spec.containers[0].image, 'docker.io/library/node:22');
  });
});

describe('tenant boundary rules', () => {
  it('pass what the restricted profile allows', () => {
    const allowed = {
      volumes: [
        { name: 'e', emptyDir: {} },
        { name: 'c', configMap: { name: 'agentplane-d-x' } },
        { name: 'p', persistentVolumeClaim: { claimName: 'agentplane-d-x' } },
      ],
      sidecars: [
        container({
          securityContext: {
            runAsNonRoot: true,
            runAsUser: 1000,
            allowPrivilegeEscalation: false,
            seccompProfile: { type: 'Localhost', localhostProfile: 'x' },
          },
        }),
      ],
    };
    assert.deepEqual(tenantBoundaryProblems(allowed, null, 'd', false, WORKLOAD), []);
  });

  it('let a listener deployment name its namespace, and nobody else', () => {
    assert.deepEqual(tenantBoundaryProblems(null, { k8s_namespace: 'agents' }, null, true, WORKLOAD), []);
    assert.equal(tenantBoundaryProblems(null, { k8s_namespace: 'agents' }, null, false, WORKLOAD).length, 1);
  });

  it('refuse every secret reference before the deployment has a Secret of its own', () => {
    const spec = { sidecars: [container({ envFrom: [{ secretRef: { name: 'agentplane-d-secrets' } }] })] };
    assert.match(tenantBoundaryProblems(spec as never, null, null, false, WORKLOAD)[0]!.msg, /create the deployment first/);
  });
});
