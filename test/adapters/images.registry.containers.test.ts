// A registry on loopback (Debian's docker-registry, when installed): `agentplane-server build
// --push` puts the image there, and the container deployer pulls it for an external_docker
// revision on a machine (the same one, its local copy removed) that does not have it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../scripts/freePort.ts';
import { ROOT, spawnServer, tempDir, type ChildServer } from '../support/server.ts';
import { create, json, keyedApi, waitForRealRevision, waitUntilGone } from '../control-plane/support.ts';
import { CONTAINERS_CONF, echoProject, eventually, podman, removeImages, testEngine } from '../containers/support.ts';

const REGISTRY = '/usr/bin/docker-registry';
const KEY = `registry-${randomUUID()}`;

describe('images through a registry', { skip: fs.existsSync(REGISTRY) ? false : "Debian's docker-registry is not installed" }, () => {
  const dir = tempDir('agentplane-registry-');
  let registry: ChildProcess | null = null;
  let controlPlane: ChildServer | null = null;
  let tag = '';

  after(async () => {
    await controlPlane?.kill('SIGTERM');
    registry?.kill('SIGTERM');
    if (tag) removeImages(tag);
  });

  it('pushes a built image and deploys it from the registry', { timeout: 600_000 }, async () => {
    const port = await freePort();
    const config = path.join(dir, 'registry.yml');
    fs.writeFileSync(config, `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/storage\nhttp:\n  addr: 127.0.0.1:${port}\n`);
    registry = spawn(REGISTRY, ['serve', config], { stdio: 'ignore' });
    await eventually('the registry', async () => (await fetch(`http://127.0.0.1:${port}/v2/`)).ok);
    // a plain-HTTP registry is one podman must be told is insecure
    const registries = path.join(dir, 'registries.conf');
    fs.writeFileSync(registries, `[[registry]]\nlocation = "127.0.0.1:${port}"\ninsecure = true\n`);
    const env = { ...process.env, CONTAINERS_CONF, CONTAINERS_REGISTRIES_CONF: registries };

    tag = `127.0.0.1:${port}/agentplane-test-push:${randomUUID().slice(0, 8)}`;
    const build = spawnSync(
      process.execPath,
      [path.join(ROOT, 'bin/agentplane.js'), 'build', '-t', tag, '-c', path.join(echoProject('pushed'), 'langgraph.json'), '--push'],
      { cwd: ROOT, env, encoding: 'utf8' },
    );
    assert.equal(build.status, 0, `${build.stdout}\n${build.stderr}`);
    assert.match(build.stdout, /Pushed /);
    const catalog = (await (await fetch(`http://127.0.0.1:${port}/v2/_catalog`)).json()) as { repositories: string[] };
    assert.deepEqual(catalog.repositories, ['agentplane-test-push']);
    // the image only: its parents are the build cache, and a build running beside this test
    // (the container files run in parallel) may be using one (podman then refuses, "in use")
    podman('rmi', '--no-prune', tag);
    assert.equal(await testEngine().hasImage(tag), false);

    controlPlane = await spawnServer(['--data', path.join(dir, 'data')], {
      AGENTPLANE_API_KEYS: `${KEY}:${randomUUID()}`,
      AGENTPLANE_DEPLOYER: 'container',
      // a registry on loopback is this machine's: the default `*` leaves it out, and the
      // operator names it to let tenants deploy from it (docs/security.md)
      AGENTPLANE_IMAGE_NAMESPACES: `127.0.0.1:${port}`,
      AGENTPLANE_ACCESS_LOG: 'off',
      CONTAINERS_CONF,
      CONTAINERS_REGISTRIES_CONF: registries,
    });
    const api = keyedApi(KEY, () => controlPlane!.url);
    const created = await create(api, { name: 'pulled-agent', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: tag } });
    const revision = await waitForRealRevision(api, created.id, created.latest_revision_id, controlPlane.output);
    assert.equal(revision.status, 'DEPLOYED', revision.status_message);
    const url: string = (await json(await api(`/v2/deployments/${created.id}`), 200)).source_config.custom_url;
    assert.equal((await fetch(`${url}/ok`)).status, 200);
    assert.equal((await api(`/v2/deployments/${created.id}`, { method: 'DELETE' })).status, 204);
    await waitUntilGone(api, created.id);
  });
});
