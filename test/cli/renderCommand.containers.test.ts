// agentplane render: the manifests of an image and a resource_spec file as YAML documents,
// the same the kubernetes deployer applies; what cannot be rendered exits 1 naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import YAML from 'yaml';
import { ROOT, tempDir } from '../support/server.ts';
import { fullResourceSpec } from '../containers/fullResourceSpec.ts';

function render(args: string[]) {
  return spawnSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'render', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });
}

test('render prints the validated manifests of a full resource_spec as YAML documents', { timeout: 90_000 }, () => {
  const file = path.join(tempDir('agentplane-render-'), 'spec.json');
  fs.writeFileSync(file, JSON.stringify(fullResourceSpec('tools:1')));
  const result = render([
    '--image',
    'registry.example/agent:2',
    '--resource-spec',
    file,
    '--namespace',
    'agents',
    '--id',
    'demo',
    '--secret',
    'OPENAI_API_KEY=sk-1',
  ]);
  assert.equal(result.status, 0, result.stderr);
  const docs = YAML.parseAllDocuments(result.stdout).map((d) => d.toJSON());
  assert.deepEqual(
    docs.map((d) => `${d.kind}/${d.metadata.name}`),
    [
      'Secret/agentplane-demo-secrets',
      'Secret/agentplane-demo-db-auth',
      'Service/agentplane-demo-db',
      'StatefulSet/agentplane-demo-db',
      'NetworkPolicy/agentplane-demo-default-deny',
      'NetworkPolicy/agentplane-demo-server',
      'NetworkPolicy/agentplane-demo-egress',
      'NetworkPolicy/agentplane-demo-db',
      'Deployment/agentplane-demo',
      'HorizontalPodAutoscaler/agentplane-demo',
      'Service/agentplane-demo',
      'Deployment/agentplane-demo-queue',
      'HorizontalPodAutoscaler/agentplane-demo-queue',
    ],
  );
  assert.ok(docs.every((d) => d.metadata.namespace === 'agents'));
  assert.equal(docs[8].spec.template.spec.containers[0].image, 'registry.example/agent:2');
  assert.deepEqual(docs[0].stringData, { OPENAI_API_KEY: 'sk-1' });
  // kubectl reads YAML 1.1, where a plain off is false: the same objects through it
  assert.deepEqual(
    YAML.parseAllDocuments(result.stdout, { version: '1.1' }).map((d) => d.toJSON()),
    docs,
  );
  assert.equal(docs[8].spec.template.spec.containers[0].env.find((e: { name: string }) => e.name === 'AGENTPLANE_CONTROL_PLANE').value, 'off');
});

test('render refuses a redis_* field and a value Kubernetes would refuse, exit 1, nothing on stdout', { timeout: 90_000 }, () => {
  const dir = tempDir('agentplane-render-');
  fs.writeFileSync(path.join(dir, 'redis.json'), JSON.stringify({ redis_memory_mb: 128 }));
  const redis = render(['--image', 'a:1', '--resource-spec', path.join(dir, 'redis.json')]);
  assert.equal(redis.status, 1);
  assert.equal(redis.stdout, '');
  assert.match(redis.stderr, /resource_spec\.redis_memory_mb cannot be honoured/);
  fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify({ init_containers: [{ name: 'x', image: 'x:1', resources: { limits: { cpu: 'lots' } } }] }));
  const bad = render(['--image', 'a:1', '--resource-spec', path.join(dir, 'bad.json')]);
  assert.equal(bad.status, 1);
  assert.equal(bad.stdout, '');
  // the allowlist refuses it before anything is rendered, naming the field
  assert.match(bad.stderr, /init_containers\.0\.resources\.limits\.cpu: "lots" is not a Kubernetes quantity/);
});

test('render refuses what the API refuses (cpu 0, a hostPath volume, a privileged sidecar) and prints the enforced profile', { timeout: 90_000 }, () => {
  const dir = tempDir('agentplane-render-');
  const refused = (name: string, spec: object, pattern: RegExp) => {
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(spec));
    const out = render(['--image', 'a:1', '--resource-spec', path.join(dir, `${name}.json`)]);
    assert.equal(out.status, 1, name);
    assert.equal(out.stdout, '', name);
    assert.match(out.stderr, pattern, name);
  };
  refused('cpu', { cpu: 0 }, /resource_spec\.cpu: must be > 0/);
  refused('hostPath', { volumes: [{ name: 'root', hostPath: { path: '/' } }] }, /resource_spec\.volumes\.0: .*\(hostPath\)/);
  refused(
    'privileged',
    { sidecars: [{ name: 's', image: 's:1', securityContext: { privileged: true } }] },
    /sidecars\.0\.securityContext\.privileged: privileged containers are not allowed/,
  );

  fs.writeFileSync(path.join(dir, 'ok.json'), JSON.stringify({ sidecars: [{ name: 's', image: 's:1' }] }));
  const ok = render(['--image', 'a:1', '--resource-spec', path.join(dir, 'ok.json')]);
  assert.equal(ok.status, 0, ok.stderr);
  const pod = YAML.parseAllDocuments(ok.stdout)
    .map((d) => d.toJSON())
    .find((d) => d.kind === 'Deployment').spec.template.spec;
  assert.deepEqual(pod.securityContext, { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  for (const c of pod.containers) assert.deepEqual(c.securityContext.capabilities, { drop: ['ALL'] }, c.name);
});

// issue 83: the render ran the server with agent-server auth off, so whoever reached its
// Service was served (and no tenant quota bound), where the Kubernetes deployers turn it on
test('render gives the server and queue agent-server auth on with the keys named by digest, or a key made and shown once', { timeout: 90_000 }, () => {
  const env = (stdout: string) =>
    YAML.parseAllDocuments(stdout)
      .map((d) => d.toJSON())
      .filter((d) => d.kind === 'Deployment')
      .flatMap((d) => d.spec.template.spec.containers)
      .filter((c: { name: string }) => c.name === 'server' || c.name === 'queue')
      .map((c: { env: { name: string; value: string }[] }) => Object.fromEntries(c.env.map((e) => [e.name, e.value])));
  const dir = tempDir('agentplane-render-');
  fs.writeFileSync(path.join(dir, 'queue.json'), JSON.stringify({ queue_min_scale: 1 }));
  const tenant = randomUUID();
  const digest = createHash('sha256').update('operator-key').digest('hex');
  // a tenant's secret of the same names cannot turn it off: env is put over envFrom
  const named = render([
    '--image',
    'a:1',
    '--resource-spec',
    path.join(dir, 'queue.json'),
    '--key-digest',
    digest,
    '--tenant',
    tenant,
    '--secret',
    'AGENTPLANE_AGENT_SERVER_AUTH=0',
  ]);
  assert.equal(named.status, 0, named.stderr);
  const containers = env(named.stdout);
  assert.equal(containers.length, 2);
  for (const c of containers) {
    assert.equal(c.AGENTPLANE_AGENT_SERVER_AUTH, '1');
    assert.equal(c.AGENTPLANE_API_KEY_DIGESTS, `${digest}:${tenant}`);
  }

  // no key named: one is made, shown on stderr, and only its digest is in the manifests
  const made = render(['--image', 'a:1', '--id', 'demo']);
  assert.equal(made.status, 0, made.stderr);
  const key = /API key only \(X-Api-Key\), shown once and kept nowhere: (\S+)/.exec(made.stderr)?.[1];
  assert.ok(key, made.stderr);
  assert.ok(!made.stdout.includes(key), 'the key itself is never rendered');
  const [server] = env(made.stdout);
  assert.equal(server.AGENTPLANE_AGENT_SERVER_AUTH, '1');
  assert.match(server.AGENTPLANE_API_KEY_DIGESTS, new RegExp(`^${createHash('sha256').update(key).digest('hex')}:[0-9a-f-]{36}$`));
  // the same id renders the same tenant: a re-apply keeps the server's data its own
  const again = render(['--image', 'a:1', '--id', 'demo']);
  assert.equal(env(again.stdout)[0].AGENTPLANE_API_KEY_DIGESTS.split(':')[1], server.AGENTPLANE_API_KEY_DIGESTS.split(':')[1]);

  const bad = render(['--image', 'a:1', '--key-digest', 'not-a-digest']);
  assert.equal(bad.status, 1);
  assert.equal(bad.stdout, '');
  assert.match(bad.stderr, /--key-digest takes the SHA-256 of a key in hex/);
});
