// A deployment's network boundary on a cluster (issue 83): its pods share a namespace with
// other tenants' deployments, and a pod network lets every pod reach every other one unless a
// NetworkPolicy says otherwise. So each deployment gets a default deny for all its pods, in
// and out, and then only what it needs:
// - its server takes connections on its port from anywhere (the ingress controller, the
//   control plane's probes of its URL, its callers); the queue workers take none;
// - its database takes connections only from its own server and queue pods, and opens none;
// - its server and queue pods reach DNS, their own database, and the public internet (a
//   graph calls model providers and tools) — never another pod, a node or the cloud's
//   metadata service, all of which sit in the private and link-local ranges left out below.
// kube-local gives the same boundary with a podman network of the deployment's own
// (podmanCluster.ts).

/** Where pods, services, nodes and metadata services live: never a deployment's egress, except its own database. */
const PRIVATE_IPV4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'];
const PRIVATE_IPV6 = ['fc00::/7', 'fe80::/10', '::1/128'];

/** A NetworkPolicy as rendered (a Manifest of renderManifests.ts, which imports this file). */
export type PolicyManifest = {
  apiVersion: 'networking.k8s.io/v1';
  kind: 'NetworkPolicy';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
};

export interface PolicyInput {
  namespace: string;
  /** The object names' base (`agentplane-<deployment id>`), also the `app.kubernetes.io/instance` of every pod of the deployment. */
  instance: string;
  /** The labels every object of the deployment carries. */
  labels: (component: string) => Record<string, string>;
  serverPort: number;
  databasePort: number;
}

export function networkPolicies({ namespace, instance, labels, serverPort, databasePort }: PolicyInput): PolicyManifest[] {
  const pods = (components: string[]) => ({
    matchLabels: { 'app.kubernetes.io/name': 'agentplane', 'app.kubernetes.io/instance': instance },
    matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: components }],
  });
  const policy = (name: string, component: string, spec: Record<string, unknown>): PolicyManifest => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace, labels: labels(component) },
    spec,
  });
  const dns = {
    ports: [
      { protocol: 'UDP', port: 53 },
      { protocol: 'TCP', port: 53 },
    ],
  };
  return [
    // every pod of the deployment: nothing in, nothing out, unless a policy below allows it
    policy(`${instance}-default-deny`, 'server', { podSelector: pods(['server', 'queue', 'database']), policyTypes: ['Ingress', 'Egress'] }),
    policy(`${instance}-server`, 'server', {
      podSelector: pods(['server']),
      policyTypes: ['Ingress'],
      ingress: [{ ports: [{ protocol: 'TCP', port: serverPort }] }],
    }),
    policy(`${instance}-egress`, 'server', {
      podSelector: pods(['server', 'queue']),
      policyTypes: ['Egress'],
      egress: [
        dns,
        { to: [{ podSelector: pods(['database']) }], ports: [{ protocol: 'TCP', port: databasePort }] },
        { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: PRIVATE_IPV4 } }, { ipBlock: { cidr: '::/0', except: PRIVATE_IPV6 } }] },
      ],
    }),
    policy(`${instance}-db`, 'database', {
      podSelector: pods(['database']),
      policyTypes: ['Ingress'],
      ingress: [{ from: [{ podSelector: pods(['server', 'queue']) }], ports: [{ protocol: 'TCP', port: databasePort }] }],
    }),
  ];
}
