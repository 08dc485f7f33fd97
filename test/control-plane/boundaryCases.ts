// What a hostile tenant sends against the tenant boundary (docs/control-plane.md), each with
// the field its 422 names and a word of the rule; `OTHER` stands for another deployment's id
// (`agentplane-OTHER-secrets` its Secret, `data-agentplane-OTHER-db-0` its database's volume).
// Shared by the API test and the container deployers' hostile-tenant test. Keys are spelt as an
// attacker would: podman kube play reads them in any letter case (Go's encoding/json).
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
  // a known key in another letter case is not that key: it is refused, whatever it holds
  ...(
    [
      [
        'SecretKeyRef',
        'sidecars.0.env.0.valueFrom.SecretKeyRef',
        sidecar({ env: [{ name: 'X', valueFrom: { SecretKeyRef: { name: 'agentplane-OTHER-secrets', key: 'K' } } }] }),
      ],
      [
        'secretkeyref',
        'sidecars.0.env.0.valueFrom.secretkeyref',
        sidecar({ env: [{ name: 'X', valueFrom: { secretkeyref: { name: 'agentplane-OTHER-secrets', key: 'K' } } }] }),
      ],
      ['SecretRef', 'sidecars.0.envFrom.0.SecretRef', sidecar({ envFrom: [{ SecretRef: { name: 'agentplane-OTHER-secrets' } }] })],
      ['SECRETREF', 'sidecars.0.envFrom.0.SECRETREF', sidecar({ envFrom: [{ SECRETREF: { name: 'agentplane-OTHER-secrets' } }] })],
      [
        'Name',
        'sidecars.0.envFrom.0.secretRef.Name',
        sidecar({ envFrom: [{ secretRef: { name: 'agentplane-OTHER-secrets', Name: 'agentplane-OTHER-secrets' } }] }),
      ],
      [
        'Secret',
        'volumes.0.projected.sources.0.Secret',
        { resource_spec: { volumes: [{ name: 'p', projected: { sources: [{ Secret: { name: 'agentplane-OTHER-secrets' } }] } }] } },
      ],
      ['Privileged', 'sidecars.0.securityContext.Privileged', sidecar({ securityContext: { Privileged: true } })],
      ['RunAsGroup', 'sidecars.0.securityContext.RunAsGroup', sidecar({ securityContext: { RunAsGroup: 0 } })],
      ['ProcMount', 'sidecars.0.securityContext.ProcMount', sidecar({ securityContext: { ProcMount: 'Unmasked' } })],
      ['SeLinuxOptions', 'sidecars.0.securityContext.SeLinuxOptions', sidecar({ securityContext: { SeLinuxOptions: { user: 'system_u' } } })],
      ['Add', 'sidecars.0.securityContext.capabilities.Add', sidecar({ securityContext: { capabilities: { Add: ['SYS_ADMIN'] } } })],
      ['HostPath', 'volumes.0.emptyDir.HostPath', { resource_spec: { volumes: [{ name: 'e', emptyDir: { HostPath: { path: '/' } } }] } }],
    ] as [string, string, object][]
  ).map(([key, field, config]): [string, object, string, RegExp] => [`the key ${key}`, config, field, new RegExp(key)]),
  [
    "another deployment's database volume",
    { resource_spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'data-agentplane-OTHER-db-0' } }] } },
    'volumes.0.persistentVolumeClaim.claimName',
    /owns/,
  ],
  [
    'a ConfigMap by configMapKeyRef',
    sidecar({ env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'K' } } }] }),
    'sidecars.0.env.0.valueFrom.configMapKeyRef.name',
    /owns/,
  ],
  ['a ConfigMap by envFrom', sidecar({ envFrom: [{ configMapRef: { name: 'settings' } }] }), 'sidecars.0.envFrom.0.configMapRef.name', /owns/],
  [
    'a projected ConfigMap',
    { resource_spec: { volumes: [{ name: 'p', projected: { sources: [{ configMap: { name: 'agentplane-OTHER-config' } }] } }] } },
    'volumes.0.projected.sources.0.configMap.name',
    /owns/,
  ],
  [
    'a projected service account token',
    { resource_spec: { volumes: [{ name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] } },
    'volumes.0.projected.sources.0.serviceAccountToken',
    /serviceAccountToken/,
  ],
  ['an image pull secret', { resource_spec: { image_pull_secrets: [{ name: 'agentplane-OTHER-registry' }] } }, 'image_pull_secrets.0.name', /owns/],
  [
    'a seccomp annotation',
    { resource_spec: { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } } },
    'annotations.seccomp.security.alpha.kubernetes.io/pod',
    /reserved/,
  ],
  [
    'a seccomp annotation in capitals',
    { resource_spec: { annotations: { 'Seccomp.Security.Alpha.Kubernetes.IO/pod': 'unconfined' } } },
    'annotations.Seccomp.Security.Alpha.Kubernetes.IO/pod',
    /reserved/,
  ],
  [
    'an apparmor annotation',
    { resource_spec: { annotations: { 'container.apparmor.security.beta.kubernetes.io/side': 'unconfined' } } },
    'annotations.container.apparmor.security.beta.kubernetes.io/side',
    /reserved/,
  ],
  [
    'a podman annotation',
    { resource_spec: { annotations: { 'io.podman.annotations.privileged': 'true' } } },
    'annotations.io.podman.annotations.privileged',
    /reserved/,
  ],
  ['a Kubernetes label', { resource_spec: { labels: { 'app.kubernetes.io/instance': 'agentplane-OTHER' } } }, 'labels.app.kubernetes.io/instance', /reserved/],
  // issue 83: what the runtimes act on, the images a pod runs, the node's CSI drivers, the host's replicas
  [
    'a systemd property raising the scope’s limits',
    { resource_spec: { annotations: { 'Org.Systemd.Property.TasksMax': 'infinity' } } },
    'annotations.Org.Systemd.Property.TasksMax',
    /reserved/,
  ],
  ['a CRIU configuration', { resource_spec: { annotations: { 'org.criu.config': '/etc/shadow' } } }, 'annotations.org.criu.config', /reserved/],
  ["another deployment's build as a sidecar", sidecar({ image: 'localhost/agentplane-deployment-OTHER:rev' }), 'sidecars.0.image', /reserved/],
  ['an image id prefix as a sidecar', sidecar({ image: 'abcd' }), 'sidecars.0.image', /image id/],
  ['an option as a sidecar image', sidecar({ image: '--privileged' }), 'sidecars.0.image', /starts with "-"/],
  [
    "another deployment's build as an init container",
    { resource_spec: { init_containers: [container({ image: 'LocalHost/agentplane-deployment-OTHER' })] } },
    'init_containers.0.image',
    /reserved/,
  ],
  [
    "a CSI driver reading another tenant's secrets",
    { resource_spec: { volumes: [{ name: 'v', csi: { driver: 'secrets-store.csi.k8s.io', volumeAttributes: { secretProviderClass: 'OTHER' } } }] } },
    'volumes.0.csi.driver',
    /AGENTPLANE_CSI_DRIVERS/,
  ],
  ['10,000 replicas', { resource_spec: { min_scale: 10_000, max_scale: 10_000 } }, 'min_scale', /AGENTPLANE_MAX_REPLICAS/],
  [
    '300 KiB of annotations',
    { resource_spec: { annotations: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`example.com/a${i}`, 'x'.repeat(15 * 1024)])) } },
    'annotations',
    /AGENTPLANE_MAX_ANNOTATION_BYTES/,
  ],
];

/** Another deployment's id in place of `OTHER` in a case. */
export const naming = (config: object, other: string) => JSON.parse(JSON.stringify(config).replaceAll('OTHER', other));

/** Where a case's 422 points. */
export const at = (field: string) =>
  field.startsWith('listener_config') || field === 'custom_url' ? `source_config.${field}` : `source_config.resource_spec.${field}`;

/** An issue's field, without the schema validator's leading `body`. */
export const where = (issue: { loc: (string | number)[] }) => (issue.loc[0] === 'body' ? issue.loc.slice(1) : issue.loc).join('.');
