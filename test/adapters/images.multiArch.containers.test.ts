// A multi-arch image pinned by its index (manifest list) digest, from a registry on loopback
// (Debian's docker-registry), on the container deployer (issue 83). The deployer runs an image
// only when the engine stores it under the name given (storedUnder, imageReference.ts): a
// reference by the index's digest must still run once pulled, while another tenant's build or
// an image of another repository, named by its digest, must not.
// Run: CONTAINERS_CONF=$PWD/config/containers.conf node --import tsx --test test/adapters/images.multiArch.containers.test.ts
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../scripts/freePort.ts';
import { startTestServer, tempDir, type TestServer } from '../support/server.ts';
import { json, until } from '../containers/support/replies.ts';
import { sharedPostgresImage } from '../containers/support/postgresImage.ts';
import { CONTAINERS_CONF, podman, podmanAvailable, removeImage, sharedNodeImage } from '../containers/support/nodeImage.ts';

const REGISTRY = '/usr/bin/docker-registry';
const skip = !podmanAvailable() ? 'podman is not installed' : !fs.existsSync(REGISTRY) ? "Debian's docker-registry is not installed" : false;

const dir = tempDir('agentplane-multiarch-');
const suffix = randomUUID().slice(0, 8);
// the two platforms' images, built here, pushed as one index, and removed here before the deploys
const native = `localhost/agentplane-test-multiarch-native:${suffix}`;
const foreign = `localhost/agentplane-test-multiarch-foreign:${suffix}`;
const list = `localhost/agentplane-test-multiarch-list:${suffix}`;
let registry: ChildProcess | null = null;
let port = 0;
let repository = '';
let indexDigest = '';
let registries = '';
/** The index by its digest: what a tenant pins. */
const byIndex = () => `${repository}@${indexDigest}`;

before(async () => {
  if (skip) return;
  port = await freePort();
  const config = path.join(dir, 'registry.yml');
  fs.writeFileSync(config, `version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: ${dir}/storage\nhttp:\n  addr: 127.0.0.1:${port}\n`);
  registry = spawn(REGISTRY, ['serve', config], { stdio: 'ignore' });
  await until('the registry', async () => ((await fetch(`http://127.0.0.1:${port}/v2/`).catch(() => null))?.ok ? true : undefined));
  repository = `127.0.0.1:${port}/acme/agent`;

  // this host's platform runs the test node image (a label of its own, so its id is new and the
  // deploy has to pull it); another platform's is a file in an empty image (nothing of it runs)
  const arch = podman(['info', '--format', '{{.Host.Arch}}']).trim();
  const context = path.join(dir, 'context');
  fs.mkdirSync(context);
  fs.writeFileSync(path.join(context, 'f'), 'another platform\n');
  fs.writeFileSync(path.join(context, 'Nativefile'), `FROM ${await sharedNodeImage()}\nLABEL agentplane.test.multiarch=${suffix}\n`);
  fs.writeFileSync(path.join(context, 'Foreignfile'), 'FROM scratch\nCOPY f /f\n');
  podman(['build', '-q', '--pull=never', '-f', path.join(context, 'Nativefile'), '-t', native, context]);
  podman(['build', '-q', '--arch', arch === 'arm64' ? 'amd64' : 'arm64', '--os', 'linux', '-f', path.join(context, 'Foreignfile'), '-t', foreign, context]);
  podman(['manifest', 'create', list]);
  podman(['manifest', 'add', list, `containers-storage:${native}`]);
  podman(['manifest', 'add', list, `containers-storage:${foreign}`]);
  const digestFile = path.join(dir, 'digest');
  // the test's own push alone skips TLS: the deployer pulls as configured (registries.conf below)
  podman(['manifest', 'push', '--all', '--tls-verify=false', '--digestfile', digestFile, list, `docker://${repository}:multi`]);
  indexDigest = fs.readFileSync(digestFile, 'utf8').trim();
  podman(['manifest', 'rm', list]);
  removeImage(native);
  removeImage(foreign);

  // a registry served over plain HTTP is one podman must be told is insecure (docs/control-plane.md)
  registries = path.join(dir, 'registries.conf');
  fs.writeFileSync(registries, `[[registry]]\nlocation = "127.0.0.1:${port}"\ninsecure = true\n`);
});

after(() => {
  registry?.kill('SIGTERM');
  if (indexDigest) removeImage(byIndex());
  for (const ref of [native, foreign]) removeImage(ref);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('container deployer: an image by its multi-arch index digest (issue 83)', () => {
  const KEY_A = `key-a-${randomUUID()}`;
  const KEY_B = `key-b-${randomUUID()}`;
  let server: TestServer;
  const asA = (pathname: string, init: RequestInit & { json?: unknown } = {}) => server.api(pathname, { ...init, headers: { 'x-api-key': KEY_A } });
  const asB = (pathname: string, init: RequestInit & { json?: unknown } = {}) => server.api(pathname, { ...init, headers: { 'x-api-key': KEY_B } });

  before(async () => {
    if (skip) return;
    server = await startTestServer({
      env: {
        AGENTPLANE_DEPLOYER: 'container',
        CONTAINERS_CONF,
        CONTAINERS_REGISTRIES_CONF: registries,
        AGENTPLANE_DEPLOY_TIMEOUT_S: '120',
        // a registry on loopback is this machine's: the operator names it (docs/security.md); and the test images
        AGENTPLANE_IMAGE_NAMESPACES: `127.0.0.1:${port},localhost`,
        AGENTPLANE_API_KEYS: `${KEY_A}:${randomUUID()},${KEY_B}:${randomUUID()}`,
      },
    });
  });

  after(async () => {
    await server?.close();
  });

  const body = (name: string, imageUri: string) => ({
    name: `${name}-${randomUUID().slice(0, 8)}`,
    source: 'external_docker',
    source_config: {},
    source_revision_config: { image_uri: imageUri },
  });
  const finished = (as: typeof asA, deploymentId: string, revisionId: string) =>
    until('the revision to finish', async () => {
      const r = await json(as(`/v2/deployments/${deploymentId}/revisions/${revisionId}`));
      return r.status.endsWith('FAILED') || r.status === 'DEPLOYED' ? r : undefined;
    });

  test(
    "runs the index's image for this platform once pulled, and never another repository's or tenant's by its digest",
    { skip, timeout: 480_000 },
    async () => {
      assert.throws(() => podman(['image', 'inspect', '--', byIndex()]), 'the image is pulled by the deploy, not left from its build');
      const victim = await json(asB('/v2/deployments', { method: 'POST', json: body('victim', await sharedNodeImage()) }), 201);
      const deployed = await json(asA('/v2/deployments', { method: 'POST', json: body('multiarch', byIndex()) }), 201);
      const build = `localhost/agentplane-deployment-${victim.id}:${victim.latest_revision_id}`;
      try {
        const revision = await finished(asA, deployed.id, deployed.latest_revision_id);
        assert.equal(revision.status, 'DEPLOYED', revision.status_message);
        const pulled = podman(['image', 'inspect', '--format', '{{.Id}}', '--', byIndex()]).trim();
        const running = podman(['inspect', `agentplane-${deployed.id}-replica-0`, '--format', '{{.Image}}']).trim();
        assert.equal(running, pulled, "the replica runs the index's image for this platform");
        const url: string = (await json(asA(`/v2/deployments/${deployed.id}`))).source_config.custom_url;
        assert.equal((await fetch(`${url}/ok`)).status, 200);

        // by its digest, under another repository of the same registry: podman alone would find the
        // image just pulled (and B's build below); the registry has neither there
        podman(['tag', await sharedNodeImage(), build]);
        const buildDigest = podman(['image', 'inspect', '--format', '{{.Digest}}', '--', build]).trim();
        for (const stolen of [`${repository.replace('/acme/', '/other/')}@${indexDigest}`, `${repository}@${buildDigest}`]) {
          assert.doesNotThrow(() => podman(['image', 'inspect', '--', stolen]), `podman itself finds ${stolen}`);
          const patched = await json(asA(`/v2/deployments/${deployed.id}`, { method: 'PATCH', json: { source_revision_config: { image_uri: stolen } } }));
          const refused = await finished(asA, deployed.id, patched.latest_revision_id);
          assert.notEqual(refused.status, 'DEPLOYED', `A's deployment ran ${stolen}`);
          assert.match(refused.status_message, /could not be pulled|under that name/, stolen);
        }
        // the revision by the index's digest is still what runs
        assert.equal(podman(['inspect', `agentplane-${deployed.id}-replica-0`, '--format', '{{.Image}}']).trim(), pulled);
      } finally {
        try {
          podman(['untag', await sharedNodeImage(), build]);
        } catch {
          // not tagged
        }
        for (const [as, d] of [
          [asA, deployed.id],
          [asB, victim.id],
        ] as const) {
          await json(as(`/v2/deployments/${d}`, { method: 'DELETE' }), 204);
          await until('the deployment to be gone', async () => ((await as(`/v2/deployments/${d}`)).status === 404 ? true : undefined), 120_000);
        }
      }
    },
  );
});

describe('kube-local deployer: a sidecar by its multi-arch index digest (issue 83)', () => {
  let server: TestServer;

  before(async () => {
    if (skip) return;
    server = await startTestServer({
      env: {
        AGENTPLANE_DEPLOYER: 'kube-local',
        CONTAINERS_CONF,
        CONTAINERS_REGISTRIES_CONF: registries,
        AGENTPLANE_DEPLOY_TIMEOUT_S: '120',
        AGENTPLANE_KUBE_POSTGRES_IMAGE: await sharedPostgresImage(),
        AGENTPLANE_IMAGE_NAMESPACES: `127.0.0.1:${port},localhost`,
      },
    });
  });

  after(async () => {
    await server?.close();
  });

  test("plays a sidecar pinned by the index's digest once pulled, and never one of another repository by that digest", { skip, timeout: 480_000 }, async () => {
    // pulled by the deploy here too (the container deployer's test may have left it)
    removeImage(byIndex());
    const created = await json(
      server.api('/v2/deployments', {
        method: 'POST',
        json: {
          name: `multiarch-${randomUUID().slice(0, 8)}`,
          source: 'external_docker',
          source_config: {
            resource_spec: {
              sidecars: [
                { name: 'beat', image: byIndex(), command: ['/usr/bin/node'], args: ['/app/sidecar.js'], env: [{ name: 'BEAT_FILE', value: '/tmp/beat.txt' }] },
              ],
            },
          },
          source_revision_config: { image_uri: await sharedNodeImage() },
        },
      }),
      201,
    );
    const finished = (revisionId: string) =>
      until('the revision to finish', async () => {
        const r = await json(server.api(`/v2/deployments/${created.id}/revisions/${revisionId}`));
        return r.status.endsWith('FAILED') || r.status === 'DEPLOYED' ? r : undefined;
      });
    try {
      const revision = await finished(created.latest_revision_id);
      assert.equal(revision.status, 'DEPLOYED', revision.status_message);
      const sidecar = `agentplane-${created.id}-pod-0-beat`;
      const pulled = podman(['image', 'inspect', '--format', '{{.Id}}', '--', byIndex()]).trim();
      assert.match(podman(['inspect', sidecar, '--format', '{{.State.Status}} {{.Image}}']), new RegExp(`^running ${pulled}`));
      // the same digest under another repository: podman finds the image just pulled; the registry has nothing there
      const stolen = `${repository.replace('/acme/', '/other/')}@${indexDigest}`;
      const patched = await json(
        server.api(`/v2/deployments/${created.id}`, {
          method: 'PATCH',
          json: { source_config: { resource_spec: { sidecars: [{ name: 'beat', image: stolen, command: ['/usr/bin/node'], args: ['/app/sidecar.js'] }] } } },
        }),
      );
      const refused = await finished(patched.latest_revision_id);
      assert.notEqual(refused.status, 'DEPLOYED', `a sidecar ran ${stolen}`);
      assert.match(refused.status_message, /under that name|pull/);
      assert.match(podman(['inspect', sidecar, '--format', '{{.State.Status}} {{.Image}}']), new RegExp(`^running ${pulled}`));
    } finally {
      await json(server.api(`/v2/deployments/${created.id}`, { method: 'DELETE' }), 204);
      await until('the deployment to be gone', async () => ((await server.api(`/v2/deployments/${created.id}`)).status === 404 ? true : undefined), 180_000);
    }
  });
});
