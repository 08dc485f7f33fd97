// The tenant boundary at the API (docs/control-plane.md, "Tenant boundary"): each rule of
// the Kubernetes "restricted" Pod Security Standard, each secret reference that names
// another deployment's secret, a tenant's namespace or service account, and a custom_url that
// is not http(s) are a 422 naming the field and the rule; nothing is stored. The manifests
// a deployment is shown carry the enforced securityContext.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inProcessApp, type InProcessApp } from '../../../support/server.ts';
import { create, dockerBody, json } from '../../../control-plane/support.ts';
import { REFUSED, at, container, naming, where } from '../../../control-plane/boundaryCases.ts';
import { tenantBoundaryProblems } from '../../../../src/domain/control-plane/kubernetes/tenantBoundary.ts';

describe('tenant boundary', () => {
  let server: InProcessApp;
  let victim: any;
  let attacker: any;
  before(async () => {
    server = await inProcessApp();
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
    assert.deepEqual(tenantBoundaryProblems(allowed, null, 'd', false), []);
  });

  it('let a listener deployment name its namespace, and nobody else', () => {
    assert.deepEqual(tenantBoundaryProblems(null, { k8s_namespace: 'agents' }, null, true), []);
    assert.equal(tenantBoundaryProblems(null, { k8s_namespace: 'agents' }, null, false).length, 1);
  });

  it('refuse every secret reference before the deployment has a Secret of its own', () => {
    const spec = { sidecars: [container({ envFrom: [{ secretRef: { name: 'agentplane-d-secrets' } }] })] };
    assert.match(tenantBoundaryProblems(spec as never, null, null, false)[0]!.msg, /create the deployment first/);
  });
});
