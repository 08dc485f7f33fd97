// agentplane render: the manifests of an image and a resource_spec file as YAML documents,
// the same the kubernetes deployer applies; what cannot be rendered exits 1 naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
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
