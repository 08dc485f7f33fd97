// A stand-in for a Kubernetes API server, for the `kubernetes` deployer where no cluster can
// run: it answers the requests @kubernetes/client-node makes with the response shapes a real
// API server gives (discovery APIResourceLists, server-side apply PATCH returning the object,
// Deployment status moving from unobserved to available, PodList, pod log text, list by label
// selector, DELETE returning a Status) and records every request for the test to check.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: any;
}

// what `kubectl get --raw /api/v1` and friends answer, cut to the kinds agentplane uses
const DISCOVERY: Record<string, { name: string; kind: string; namespaced: boolean; verbs: string[] }[]> = {
  '/api/v1': [
    { name: 'secrets', kind: 'Secret', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
    { name: 'services', kind: 'Service', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
    { name: 'pods', kind: 'Pod', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
    { name: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
  ],
  '/apis/apps/v1': [
    { name: 'deployments', kind: 'Deployment', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
    { name: 'statefulsets', kind: 'StatefulSet', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
  ],
  '/apis/autoscaling/v2': [
    { name: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
  ],
  '/apis/policy/v1': [
    { name: 'poddisruptionbudgets', kind: 'PodDisruptionBudget', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
  ],
  '/apis/networking.k8s.io/v1': [
    { name: 'networkpolicies', kind: 'NetworkPolicy', namespaced: true, verbs: ['create', 'delete', 'get', 'list', 'patch', 'update'] },
  ],
};

export interface FakeKubeApi {
  url: string;
  requests: RecordedRequest[];
  /** Stored objects by `${group path}/namespaces/${ns}/${plural}/${name}`. */
  objects: Map<string, any>;
  /** What the pods of the server report: running, or stuck pulling their image. */
  podState: 'running' | 'image-pull-back-off';
  podLog: string;
  close(): Promise<void>;
}

const PATH = /^(\/api\/v1|\/apis\/[^/]+\/[^/]+)\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/(log))?$/;

export async function startFakeKubeApi(): Promise<FakeKubeApi> {
  const api: FakeKubeApi = { url: '', requests: [], objects: new Map(), podState: 'running', podLog: '', close: async () => undefined };
  // how many times each Deployment was read: the first read finds it not yet observed
  const reads = new Map<string, number>();
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://fake');
      const body = text ? JSON.parse(text) : undefined;
      api.requests.push({ method: req.method!, path: url.pathname, query: url.searchParams, contentType: req.headers['content-type'], body });
      const send = (status: number, value: unknown, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(typeof value === 'string' ? value : JSON.stringify(value));
      };
      if (DISCOVERY[url.pathname]) {
        return send(200, {
          kind: 'APIResourceList',
          apiVersion: 'v1',
          groupVersion: url.pathname.replace(/^\/apis?\//, '').replace(/^v1$/, 'v1'),
          resources: DISCOVERY[url.pathname],
        });
      }
      const m = PATH.exec(url.pathname);
      if (!m) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
      const [, group, namespace, plural, name, sub] = m;
      const key = `${group}/namespaces/${namespace}/${plural}/${name}`;
      if (plural === 'pods' && sub === 'log') return send(200, api.podLog, 'text/plain');
      if (plural === 'pods' && !name) return send(200, podList(api, namespace));
      if (req.method === 'PATCH') {
        const stored = { ...body, metadata: { ...body.metadata, uid: `uid-${name}`, generation: 1, resourceVersion: '1' } };
        api.objects.set(key, stored);
        return send(200, stored);
      }
      if (req.method === 'GET' && name) {
        const stored = api.objects.get(key);
        if (!stored) return send(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
        const times = (reads.get(key) ?? 0) + 1;
        reads.set(key, times);
        return send(200, plural === 'deployments' || plural === 'statefulsets' ? withStatus(stored, times) : stored);
      }
      if (req.method === 'GET') {
        const [label, value] = (url.searchParams.get('labelSelector') ?? '').split('=');
        const items = [...api.objects.entries()]
          .filter(([k, o]) => k.startsWith(`${group}/namespaces/${namespace}/${plural}/`) && o.metadata.labels?.[label] === value)
          .map(([k, o]) => {
            if (plural !== 'deployments' && plural !== 'statefulsets') return o;
            const times = (reads.get(k) ?? 0) + 1;
            reads.set(k, times);
            return withStatus(o, times);
          });
        return send(200, { kind: `${items[0]?.kind ?? 'Object'}List`, apiVersion: 'v1', metadata: { resourceVersion: '2' }, items });
      }
      if (req.method === 'DELETE') {
        api.objects.delete(key);
        return send(200, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, kind: plural } });
      }
      send(405, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 405 });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api.close = () => new Promise((resolve) => server.close(() => resolve()));
  return api;
}

/** A Deployment's (or StatefulSet's) status as its controller reports it: not observed on the first read, rolled out after. */
function withStatus(deployment: any, reads: number): any {
  const replicas = deployment.spec.replicas ?? 1;
  if (reads === 1) return { ...deployment, status: { observedGeneration: 0 } };
  return {
    ...deployment,
    status: {
      observedGeneration: 1,
      replicas,
      updatedReplicas: replicas,
      readyReplicas: replicas,
      availableReplicas: replicas,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable', message: 'ReplicaSet has successfully progressed.' },
      ],
    },
  };
}

function podList(api: FakeKubeApi, namespace: string): any {
  const server = [...api.objects.values()].find((o) => o.kind === 'Deployment' && o.metadata.labels['app.kubernetes.io/component'] === 'server');
  if (!server) return { kind: 'PodList', apiVersion: 'v1', metadata: {}, items: [] };
  const state =
    api.podState === 'running'
      ? { running: { startedAt: '2026-11-23T19:00:00Z' } }
      : { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${server.spec.template.spec.containers[0].image}"` } };
  return {
    kind: 'PodList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '3' },
    items: [
      {
        metadata: { name: `${server.metadata.name}-7d9c5b6f4-x2k8q`, namespace, labels: server.spec.template.metadata.labels },
        status: {
          phase: api.podState === 'running' ? 'Running' : 'Pending',
          containerStatuses: [{ name: 'server', ready: api.podState === 'running', restartCount: 0, image: 'x', imageID: '', state }],
        },
      },
    ],
  };
}
