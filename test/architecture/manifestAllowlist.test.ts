// The resource_spec allowlist (src/domain/control-plane/kubernetes/allowlist/) is the only path
// from what a tenant sent to a manifest or a container: an AdmittedSpec is made only there,
// the renderer types nothing with the API's raw ResourceSpec or Container and reads a
// deployment's `resource_spec` only to hand it to admitResourceSpec, and every deploy target
// (the adapters, the Kubernetes target among them, the render command) reads `resource_spec` only
// through the allowlist. Checked on the sources, comments left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ALLOWLIST = 'src/domain/control-plane/kubernetes/allowlist/';
const RENDERER = 'src/domain/control-plane/kubernetes/renderManifests.ts';

const files = (dir: string): string[] =>
  fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    return e.isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
/** A file's code without its comments (strings kept: they hold no `resource_spec` reads). */
const code = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`])\/\/.*$/gm, '$1');

test('an AdmittedSpec is made by the allowlist only', () => {
  const makers = files('src').filter((f) => !f.startsWith(ALLOWLIST) && /\bas (unknown as )?AdmittedSpec\b|<AdmittedSpec>/.test(code(f)));
  assert.deepEqual(makers, []);
  assert.match(code(`${ALLOWLIST}resourceSpec.ts`), /declare const admitted: unique symbol/);
});

test("the renderer takes the allowlist's output only: no raw ResourceSpec or Container, resource_spec read once, into admitResourceSpec", () => {
  const renderer = code(RENDERER);
  assert.doesNotMatch(renderer, /\bResourceSpec\b|\bContainer as\b|types\.gen/);
  const reads = [...renderer.matchAll(/\.resource_spec\b/g)];
  assert.equal(reads.length, 1, 'renderManifests.ts reads resource_spec once');
  assert.match(
    renderer,
    /admitResourceSpec\(input\.deployment\.source_config\.resource_spec, \{ deploymentId: input\.deployment\.id, workload: input\.workload \}\)/,
  );
  // the functions that build objects take the AdmittedSpec (or only some of its numbers: Redis, queue fields)
  const signatures = [...renderer.matchAll(/function \w+\([^)]*\bspec: (\w+)/g)];
  assert.ok(signatures.length >= 3);
  for (const signature of signatures) assert.match(signature[1]!, /^(AdmittedSpec|Numbers)$/, signature[0]);
  assert.match(renderer, /type Numbers<K extends string> = \{ readonly \[F in K\]\?: number \| null \}/);
});

test('every deploy target reads resource_spec only through the allowlist', () => {
  const targets = [
    ...files('src/adapters'),
    ...files('src/domain/control-plane/kubernetes').filter((f) => !f.startsWith(ALLOWLIST) && f !== RENDERER),
    'src/cli/renderCommand.ts',
  ];
  assert.ok(
    targets.includes('src/adapters/deploy-targets/kubernetes/podmanCluster.ts') && targets.includes('src/adapters/deploy-targets/container/containerTarget.ts'),
  );
  const offenders = targets.flatMap((file) =>
    code(file)
      .split('\n')
      .map((line, i) => [line, i + 1] as const)
      // the render command builds a request body from the file it was given, which the renderer then admits
      .filter(([line]) => /\.resource_spec\b/.test(line))
      .map(([line, n]) => `${file}:${n}: ${line.trim()}`),
  );
  assert.deepEqual(offenders, []);
  for (const file of ['src/adapters/deploy-targets/container/containerTarget.ts', 'src/adapters/deploy-targets/local/localTarget.ts'])
    assert.match(code(file), /admitDeploymentSpec\(deployment, this\.options\.policy\)/, file);
});
