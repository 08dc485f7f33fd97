// The tenant boundary at the API (docs/control-plane.md, "Tenant boundary"): each rule of
// the Kubernetes "restricted" Pod Security Standard, each secret reference that names
// another deployment's secret, a tenant's namespace or service account, and a custom_url that
// is not http(s) are a 422 naming the field and the rule; nothing is stored. The manifests
// a deployment is shown carry the enforced securityContext.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { create, dockerBody, json } from './support.ts';
import { tenantBoundaryProblems } from '../../src/domain/control-plane/kubernetes/tenantBoundary.ts';

const container = (extra: object) => ({ name: 'side', image: 'tools:1', ...extra });
const sidecar = (extra: object) => ({ resource_spec: { sidecars: [container(extra)] } });

/** Each request, the field its 422 names and a word of the rule. */
const REFUSED: [string, object, string, RegExp][] = [
  ['privileged', sidecar({ securityContext: { privileged: true } }), 'sidecars.0.securityContext.privileged', /privileged/],
  ['privilege escalation', sidecar({ securityContext: { allowPrivilegeEscalation: true } }), 'sidecars.0.securityContext.allowPrivilegeEscalation', /false/],
  ['runAsNonRoot false', sidecar({ securityContext: { runAsNonRoot: false } }), 'sidecars.0.securityContext.runAsNonRoot', /true/],
  ['uid 0', sidecar({ securityContext: { runAsUser: 0 } }), 'sidecars.0.securityContext.runAsUser', /root/],
  ['a capability', sidecar({ securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }), 'sidecars.0.securityContext.capabilities', /SYS_ADMIN/],
  [
    'seccomp Unconfined',
    sidecar({ securityContext: { seccompProfile: { type: 'Unconfined' } } }),
    'sidecars.0.securityContext.seccompProfile',
    /RuntimeDefault/,
  ],
  ['procMount', sidecar({ securityContext: { procMount: 'Unmasked' } }), 'sidecars.0.securityContext.procMount', /Default/],
  ['hostPath', { resource_spec: { volumes: [{ name: 'root', hostPath: { path: '/' } }] } }, 'volumes.0.hostPath', /hostPath volumes are not allowed/],
  ['an nfs volume', { resource_spec: { volumes: [{ name: 'n', nfs: { server: 'x', path: '/' } }] } }, 'volumes.0.nfs', /not allowed/],
  ['hostNetwork', { resource_spec: { hostNetwork: true } }, 'hostNetwork', /host namespaces/],
  ['a service account', { resource_spec: { service_account_name: 'cluster-admin-sa' } }, 'service_account_name', /operator/],
  ['a namespace', { listener_config: { k8s_namespace: 'kube-system' } }, 'listener_config.k8s_namespace', /operator/],
  ['a javascript: custom_url', { custom_url: 'javascript:alert(document.cookie)' }, 'custom_url', /http or https/],
  [
    "another deployment's secret (secretKeyRef)",
    sidecar({ env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'agentplane-OTHER-secrets', key: 'K' } } }] }),
    'sidecars.0.env.0.valueFrom.secretKeyRef.name',
    /own Secret/,
  ],
  ['a secret by envFrom', sidecar({ envFrom: [{ secretRef: { name: 'agentplane-OTHER-secrets' } }] }), 'sidecars.0.envFrom.0.secretRef.name', /own Secret/],
  [
    'a secret volume',
    { resource_spec: { volumes: [{ name: 's', secret: { secretName: 'agentplane-OTHER-secrets' } }] } },
    'volumes.0.secret.secretName',
    /own Secret/,
  ],
  [
    'a projected secret',
    { resource_spec: { volumes: [{ name: 'p', projected: { sources: [{ secret: { name: 'agentplane-OTHER-secrets' } }] } }] } },
    'volumes.0.projected.sources.0.secret.name',
    /own Secret/,
  ],
];

const at = (field: string) =>
  field.startsWith('listener_config') || field === 'custom_url' ? `source_config.${field}` : `source_config.resource_spec.${field}`;

/** An issue's field, without the schema validator's leading `body`. */
const where = (issue: { loc: (string | number)[] }) => (issue.loc[0] === 'body' ? issue.loc.slice(1) : issue.loc).join('.');

describe('tenant boundary', () => {
  let server: TestServer;
  let victim: any;
  let attacker: any;
  before(async () => {
    server = await startTestServer();
    victim = await create(server.api, { ...dockerBody('victim'), secrets: [{ name: 'TOKEN', value: 'victim-token' }] });
    attacker = await create(server.api, dockerBody('attacker'));
  });
  after(() => server.close());

  it('refuses each rule with a 422 naming the field, on create and on PATCH, and stores nothing', async () => {
    for (const [what, config, field, rule] of REFUSED) {
      const named = JSON.parse(JSON.stringify(config).replaceAll('agentplane-OTHER-secrets', `agentplane-${victim.id}-secrets`));
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
        { name: 'c', configMap: { name: 'x' } },
        { name: 'p', persistentVolumeClaim: { claimName: 'x' } },
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
    assert.deepEqual(tenantBoundaryProblems(allowed as never, null, 'agentplane-d-secrets', false), []);
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
