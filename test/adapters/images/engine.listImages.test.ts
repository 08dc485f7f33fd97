// Listing a deployment's images while another image is removed: podman fails the whole
// listing "image not known", and a deployment's delete failed with it (engine.ts listImages).
// A fake engine on PATH plays podman: it fails that way the first four times, then lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ContainerEngine, EngineError } from '../../../src/adapters/images/engine.ts';
import { tempDir } from '../../support/tempDirs.ts';

function fakePodman(script: string): { env: Record<string, string>; calls: () => string[] } {
  const dir = tempDir('agentplane-fake-podman-');
  const log = path.join(dir, 'calls');
  fs.writeFileSync(path.join(dir, 'podman'), `#!/bin/sh\necho "$*" >> "${log}"\n${script}\n`, { mode: 0o755 });
  return { env: { PATH: `${dir}:/usr/bin:/bin` }, calls: () => fs.readFileSync(log, 'utf8').trim().split('\n') };
}

test('a listing that met images removed meanwhile is asked again, after a pause, until it answers', async () => {
  // four in a row: a removal of several images outlasted three attempts made at once
  const fake = fakePodman(
    `n=$(wc -l < "$(dirname "$0")/calls")\nif [ "$n" -lt 5 ]; then echo 'Error: reading image "0e8f": locating image with ID "0e8f": image not known' >&2; exit 125; fi\nprintf 'aaa\\nbbb\\n'`,
  );
  const engine = new ContainerEngine({ name: 'podman', env: fake.env, containersConf: null });
  assert.deepEqual(await engine.listImages(['label=agentplane.deployment=d1'], { all: true }), ['aaa', 'bbb']);
  assert.deepEqual(fake.calls(), Array(5).fill('images --all --quiet --filter label=agentplane.deployment=d1'));
});

test('any other failure of a listing is not asked again', async () => {
  const fake = fakePodman(`echo 'Error: cannot connect' >&2; exit 125`);
  const engine = new ContainerEngine({ name: 'podman', env: fake.env, containersConf: null });
  await assert.rejects(engine.listImages(['reference=x']), EngineError);
  assert.equal(fake.calls().length, 1);
});
