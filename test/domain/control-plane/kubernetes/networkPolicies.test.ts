// The NetworkPolicies rendered for every deployment (issue 83, "a network per tenant"): two
// tenants' deployments in one namespace, and the connections a cluster enforcing the rendered
// policies lets through, worked out here as Kubernetes defines them (a pod selected by a policy
// of a direction takes only what one of those policies' rules allows; a connection needs the
// source's egress and the destination's ingress). A's pods reach neither B's server nor B's
// database; B's server reaches its own database; the world reaches a server's port and nothing else.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { renderManifests, type Manifest, type RenderInput } from '../../../../src/domain/control-plane/kubernetes/renderManifests.ts';
import { validateManifests } from '../../../../src/domain/control-plane/kubernetes/validateManifests.ts';
import { DEFAULT_WORKLOAD_POLICY, EVERY_TENANT, workloadOf } from '../../../../src/domain/control-plane/workloadPolicy.ts';

function render(deploymentId: string): Manifest[] {
  const input: RenderInput = {
    deployment: {
      id: deploymentId,
      name: 'agent',
      secrets: [],
      source_config: {
        resource_spec: { queue_min_scale: 1, labels: { team: 'x' } },
      } as unknown as RenderInput['deployment']['source_config'],
    },
    revision: { id: randomUUID(), source_revision_config: { image_uri: 'registry.example/agent:1.0' } as RenderInput['revision']['source_revision_config'] },
    defaultNamespace: 'agents',
    postgresImage: 'postgres:16',
    databasePassword: 'pw',
    workload: workloadOf(DEFAULT_WORKLOAD_POLICY, EVERY_TENANT),
  };
  const result = renderManifests(input);
  assert.ok(result.ok, JSON.stringify(result));
  return result.manifests;
}

type Labels = Record<string, string>;
type Selector = { matchLabels?: Labels; matchExpressions?: { key: string; operator: string; values: string[] }[] };
type Peer = { podSelector?: Selector; ipBlock?: { cidr: string; except?: string[] } };
type Rule = { from?: Peer[]; to?: Peer[]; ports?: { protocol?: string; port: number }[] };
type Policy = { podSelector: Selector; policyTypes: string[]; ingress?: Rule[]; egress?: Rule[] };
/** A pod (its labels and address) or an address outside the cluster (no labels). */
type Endpoint = { labels: Labels | null; ip: string };

const selects = (selector: Selector, labels: Labels | null): boolean =>
  labels !== null &&
  Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v) &&
  (selector.matchExpressions ?? []).every((e) => {
    assert.equal(e.operator, 'In', 'the evaluator knows In only');
    return e.key in labels && e.values.includes(labels[e.key]);
  });

function ipv4InCidr(ip: string, cidr: string): boolean {
  if (cidr.includes(':')) return false;
  const [base, bits] = cidr.split('/');
  const value = (a: string) => a.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
  const size = 2 ** (32 - Number(bits));
  return Math.floor(value(ip) / size) === Math.floor(value(base) / size);
}

const matchesPeer = (peer: Peer, other: Endpoint) =>
  peer.podSelector
    ? selects(peer.podSelector, other.labels)
    : !!peer.ipBlock && ipv4InCidr(other.ip, peer.ipBlock.cidr) && !(peer.ipBlock.except ?? []).some((c) => ipv4InCidr(other.ip, c));

function allows(policies: Policy[], direction: 'Ingress' | 'Egress', pod: Endpoint, other: Endpoint, port: number, protocol: string): boolean {
  if (pod.labels === null) return true; // outside the cluster: no policy of its own
  const applying = policies.filter((p) => p.policyTypes.includes(direction) && selects(p.podSelector, pod.labels));
  if (applying.length === 0) return true;
  return applying.some((p) =>
    ((direction === 'Ingress' ? p.ingress : p.egress) ?? []).some((rule) => {
      const peers = direction === 'Ingress' ? rule.from : rule.to;
      const peerOk = !peers || peers.some((peer) => matchesPeer(peer, other));
      const portOk = !rule.ports || rule.ports.some((r) => r.port === port && (r.protocol ?? 'TCP') === protocol);
      return peerOk && portOk;
    }),
  );
}

const A = randomUUID();
const B = randomUUID();
const manifests = [...render(A), ...render(B)];
const policies = manifests.filter((m) => m.kind === 'NetworkPolicy').map((m) => m.spec as Policy);
/** A pod of the deployment as its workload's template labels it. */
function pod(deploymentId: string, component: 'server' | 'queue' | 'database', ip: string): Endpoint {
  const workload = manifests.find(
    (m) =>
      (m.kind === 'Deployment' || m.kind === 'StatefulSet') &&
      m.metadata.labels?.['agentplane.dev/deployment-id'] === deploymentId &&
      m.metadata.labels?.['app.kubernetes.io/component'] === component,
  );
  assert.ok(workload, `${component} of ${deploymentId}`);
  return { labels: (workload.spec as { template: { metadata: { labels: Labels } } }).template.metadata.labels, ip };
}
const connects = (from: Endpoint, to: Endpoint, port: number, protocol = 'TCP') =>
  allows(policies, 'Egress', from, to, port, protocol) && allows(policies, 'Ingress', to, from, port, protocol);

const aServer = pod(A, 'server', '10.1.0.1');
const aQueue = pod(A, 'queue', '10.1.0.2');
const aDatabase = pod(A, 'database', '10.1.0.3');
const bServer = pod(B, 'server', '10.1.0.4');
const bQueue = pod(B, 'queue', '10.1.0.5');
const bDatabase = pod(B, 'database', '10.1.0.6');
const internet: Endpoint = { labels: null, ip: '203.0.113.7' };
const dns: Endpoint = { labels: null, ip: '10.96.0.10' };
const metadataService: Endpoint = { labels: null, ip: '169.254.169.254' };

test('every deployment gets NetworkPolicies that pass the Kubernetes schema, in its namespace, labelled with its id', () => {
  const own = render(A).filter((m) => m.kind === 'NetworkPolicy');
  assert.equal(own.length, 4);
  assert.deepEqual(validateManifests(own), []);
  for (const policy of own) {
    assert.equal(policy.metadata.namespace, 'agents');
    assert.equal(policy.metadata.labels?.['agentplane.dev/deployment-id'], A);
  }
  // every pod of the deployment is denied everything a policy does not allow, both ways
  const deny = own.find((m) => m.metadata.name.endsWith('-default-deny'))?.spec as Policy;
  assert.deepEqual(deny.policyTypes, ['Ingress', 'Egress']);
  for (const p of [aServer, aQueue, aDatabase]) assert.ok(selects(deny.podSelector, p.labels));
});

test("another tenant's pods reach neither the deployment's server nor its database", () => {
  for (const attacker of [aServer, aQueue, aDatabase]) {
    assert.equal(connects(attacker, bServer, 8000), false);
    assert.equal(connects(attacker, bDatabase, 5432), false);
    assert.equal(connects(attacker, bQueue, 8000), false);
  }
  // nor the other way round
  assert.equal(connects(bServer, aDatabase, 5432), false);
});

test('a server and its queue workers reach their own database; nothing else of the cluster does', () => {
  assert.equal(connects(bServer, bDatabase, 5432), true);
  assert.equal(connects(bQueue, bDatabase, 5432), true);
  assert.equal(connects(internet, bDatabase, 5432), false);
  assert.equal(connects(bServer, bDatabase, 22), false);
  // the database opens no connection of its own
  assert.equal(connects(bDatabase, internet, 443), false);
  assert.equal(connects(bDatabase, bServer, 8000), false);
});

test("the server takes connections on its port only; its pods reach DNS and the public internet, not the cloud's metadata", () => {
  assert.equal(connects(internet, bServer, 8000), true);
  assert.equal(connects(internet, bServer, 9000), false);
  assert.equal(connects(internet, bQueue, 8000), false);
  assert.equal(connects(bServer, dns, 53, 'UDP'), true);
  assert.equal(connects(bQueue, dns, 53, 'TCP'), true);
  assert.equal(connects(bServer, internet, 443), true);
  assert.equal(connects(bServer, metadataService, 80), false);
  assert.equal(connects(bServer, { labels: null, ip: '10.0.0.1' }, 443), false);
});
