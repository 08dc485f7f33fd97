// Changing the spec and regenerating changes generated/, and the compiler then points at the
// handler that must follow. Runs on a copy of the project so the real tree is untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import YAML from 'yaml';
import { ROOT, tempDir } from '../support/server.ts';

function copyProject(): string {
  const dir = tempDir('agentplane-codegen-');
  for (const entry of ['spec', 'scripts', 'generated', 'src', 'test', 'examples', 'tsconfig.json', 'tsconfig.build.json', 'package.json']) {
    const from = path.join(ROOT, entry);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dir, entry), { recursive: true });
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

const run = (cwd: string, args: string[]) => spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });

test('a new operation in spec/ regenerates generated/ and the compiler asks for its handler', { timeout: 120_000 }, () => {
  const dir = copyProject();
  const specFile = path.join(dir, 'spec/control-plane.openapi.yaml');
  const doc = YAML.parse(fs.readFileSync(specFile, 'utf8'));
  doc.paths['/v2/deployments/{deployment_id}/restart'] = {
    post: {
      operationId: 'restartDeployment',
      summary: 'Restart a deployment',
      parameters: [{ name: 'deployment_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      responses: { '200': { description: 'Restarted', content: { 'application/json': { schema: { $ref: '#/components/schemas/Deployment' } } } } },
    },
  };
  fs.writeFileSync(specFile, YAML.stringify(doc));
  const before = fs.readFileSync(path.join(dir, 'generated/control-plane/operations.gen.ts'), 'utf8');

  // CI's check (`npm run check:generated`) fails while generated/ is not what the spec now produces
  const stale = run(dir, ['--import', 'tsx', 'scripts/check-generated.ts']);
  assert.notEqual(stale.status, 0, 'a stale generated/ fails the check');
  assert.match(stale.stderr, /stale: generated\/control-plane\/operations\.gen\.ts/);

  const generate = run(dir, ['--import', 'tsx', 'scripts/generate.ts']);
  assert.equal(generate.status, 0, generate.stderr);
  const after = fs.readFileSync(path.join(dir, 'generated/control-plane/operations.gen.ts'), 'utf8');
  assert.notEqual(after, before);
  assert.match(after, /restartDeployment\(request: RestartDeploymentRequest/);

  // only the control plane's handler registry and what it imports, not the whole program: the
  // registry is where a missing handler must show, and this compiles in a fraction of the time
  fs.writeFileSync(
    path.join(dir, 'tsconfig.registry.json'),
    JSON.stringify({ extends: './tsconfig.json', include: [], files: ['src/compose/areas/controlPlaneServices.ts'] }),
  );
  // the project's typecheck compiler (npm run typecheck): TypeScript 7's
  const tsc = run(dir, [path.join(ROOT, 'node_modules/typescript-7/bin/tsc'), '--noEmit', '-p', 'tsconfig.registry.json']);
  assert.notEqual(tsc.status, 0, 'the compiler rejects the handler registry');
  assert.match(tsc.stdout, /restartDeployment/);
  // the registry is the control plane's composition root, which binds every operation to its handler
  assert.match(tsc.stdout, /src\/compose\/areas\/controlPlaneServices\.ts/);
  fs.rmSync(dir, { recursive: true, force: true });
});
