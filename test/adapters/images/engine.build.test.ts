// A build whose working container is removed under it: `podman rmi --force` of an image whose
// parent is that container's base takes the container too (the CI failure of 2026-12-07, a
// test's removal beside another test's build). A fake engine on PATH plays podman.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ContainerEngine, EngineError } from '../../../src/adapters/images/engine.ts';
import { tempDir } from '../../support/tempDirs.ts';

const ID = '2fcb56c7fe8a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0';

/** podman's last lines when the container vanished after the commit, as the CI printed them. */
const CLEANUP_FAILED = [
  '[2/2] COMMIT localhost/app:1',
  '--> 2fcb56c7fe8',
  'Successfully tagged localhost/app:1',
  'time="2026-12-07T23:55:29Z" level=error msg="error deleting build container \\"ba92\\": identifier is not a container"',
  'Error: identifier is not a container',
];

function fakePodman(build: string, inspectedId: string): { engine: ContainerEngine; calls: () => string[] } {
  const dir = tempDir('agentplane-fake-podman-');
  const log = path.join(dir, 'calls');
  const script = [
    '#!/bin/sh',
    `echo "$*" >> "${log}"`,
    `if [ "$1" = image ]; then echo '${inspectedId}'; exit 0; fi`,
    `n=$(grep -c '^build' "${log}")`,
    build,
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'podman'), `${script}\n`, { mode: 0o755 });
  const engine = new ContainerEngine({ name: 'podman', env: { PATH: `${dir}:/usr/bin:/bin` }, containersConf: null });
  return { engine, calls: () => fs.readFileSync(log, 'utf8').trim().split('\n') };
}

const printed = (lines: string[]) => lines.map((line) => `printf '%s\\n' '${line.replaceAll("'", "'\\''")}' >&2`).join('\n');

test('a build whose container vanished after its image was committed and tagged succeeds, and is not run again', async () => {
  const fake = fakePodman(`${printed(CLEANUP_FAILED)}\nexit 125`, `sha256:${ID}`);
  await fake.engine.build(['-t', 'localhost/app:1', '.']);
  assert.deepEqual(fake.calls(), ['build -t localhost/app:1 .', 'image inspect --format {{.Id}} -- localhost/app:1']);
});

test('the same failure with another image under the name (an earlier build of it) is not taken for this build', async () => {
  const fake = fakePodman(`${printed(CLEANUP_FAILED)}\nexit 125`, `sha256:${'9'.repeat(64)}`);
  await assert.rejects(fake.engine.build(['-t', 'localhost/app:1', '.']), EngineError);
  assert.equal(fake.calls().filter((call) => call.startsWith('build')).length, 3);
});

test('a build whose container vanished before the commit is built again', async () => {
  const fake = fakePodman(
    `if [ "$n" -lt 2 ]; then ${printed(['STEP 3/7: COPY project/ /deps/app/', 'Error: identifier is not a container'])}; exit 125; fi\necho ${ID}`,
    ID,
  );
  const lines: string[] = [];
  assert.equal((await fake.engine.build(['-t', 'localhost/app:1', '.'], { onLine: (line) => lines.push(line) })).trim(), ID);
  assert.equal(fake.calls().length, 2);
  assert.ok(lines.some((line) => /removed while it ran \(identifier is not a container\); building again \(attempt 2 of 3\)/.test(line)));
});

test("a build's other failures are neither built again nor taken for success", async () => {
  const fake = fakePodman(`${printed(['Successfully tagged localhost/app:1', 'Error: no space left on device'])}\nexit 125`, ID);
  await assert.rejects(fake.engine.build(['-t', 'localhost/app:1', '.']), /no space left on device/);
  assert.deepEqual(fake.calls(), ['build -t localhost/app:1 .']);
});
