// What a hostile tenant sends against the tenant boundary (docs/control-plane.md), each with
// the field its 422 names and a word of the rule; `agentplane-OTHER-secrets` stands for another
// deployment's Secret. Shared by the API test and the container deployers' hostile-tenant test.
export const container = (extra: object) => ({ name: 'side', image: 'tools:1', ...extra });
const sidecar = (extra: object) => ({ resource_spec: { sidecars: [container(extra)] } });

/** Each request, the field its 422 names and a word of the rule. */
export const REFUSED: [string, object, string, RegExp][] = [
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

/** Where a case's 422 points. */
export const at = (field: string) =>
  field.startsWith('listener_config') || field === 'custom_url' ? `source_config.${field}` : `source_config.resource_spec.${field}`;

/** An issue's field, without the schema validator's leading `body`. */
export const where = (issue: { loc: (string | number)[] }) => (issue.loc[0] === 'body' ? issue.loc.slice(1) : issue.loc).join('.');
