// A hostile tenant against the container and kube-local deployers, on this machine's podman:
// secrets named after the runtime's own variables (PATH, LD_PRELOAD, CONTAINERS_CONF) that
// would make the control plane run a planted program as root; secret references to another
// deployment's secrets; and each rule of the Kubernetes "restricted" Pod Security Standard.
// Run: CONTAINERS_CONF=$PWD/config/containers.conf npx tsx --test test/adapters/deploy-targets.hostileTenant.containers.test.ts
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createLogger } from '../../src/runtime/logging/logger.ts';
import { startTestServer, tempDir, type TestServer } from '../support/server.ts';
import { json, until } from '../containers/support/replies.ts';
import { REFUSED, at, naming, where } from '../control-plane/boundaryCases.ts';
import { CONTAINERS_CONF, TEST_IMAGE_NAMESPACES, podman, podmanAvailable, sharedNodeImage } from '../containers/support/nodeImage.ts';
import { sharedPostgresImage } from '../containers/support/postgresImage.ts';

const skip = podmanAvailable() ? false : 'podman is not installed';
let image = '';
const planted = tempDir('agentplane-planted-');
const marker = path.join(planted, 'ran-as-the-control-plane');

/**
 * What a tenant would plant where the control plane could run it: a `podman` and a `conmon`
 * first on a PATH, a preloaded library, a containers.conf naming the planted conmon. Each
 * leaves the marker file, then lets the real program go on (so nothing else fails).
 */
function plant(): Record<string, string> {
  const script = (real: string) => `#!/bin/sh\necho "$0 $*" >> ${marker}\nexec ${real} "$@"\n`;
  fs.writeFileSync(path.join(planted, 'podman'), script(execFileSync('which', ['podman'], { encoding: 'utf8' }).trim()), { mode: 0o755 });
  fs.writeFileSync(path.join(planted, 'conmon'), script(execFileSync('which', ['conmon'], { encoding: 'utf8' }).trim()), { mode: 0o755 });
  fs.writeFileSync(
    path.join(planted, 'hook.c'),
    `#include <stdio.h>\n__attribute__((constructor)) static void hook(void) { FILE *f = fopen("${marker}", "a"); if (f) { fputs("LD_PRELOAD\\n", f); fclose(f); } }\n`,
  );
  execFileSync('cc', ['-shared', '-fPIC', '-o', path.join(planted, 'hook.so'), path.join(planted, 'hook.c')]);
  fs.writeFileSync(path.join(planted, 'containers.conf'), `${fs.readFileSync(CONTAINERS_CONF, 'utf8')}conmon_path = ["${path.join(planted, 'conmon')}"]\n`);
  return {
    PATH: `${planted}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    LD_PRELOAD: path.join(planted, 'hook.so'),
    CONTAINERS_CONF: path.join(planted, 'containers.conf'),
    MULTI_LINE: '-----BEGIN KEY-----\nPATH\nsecret-body\n-----END KEY-----',
  };
}

const finished = (server: TestServer, revisionPath: string) =>
  until('the revision to finish', async () => {
    const r = await json(server.api(revisionPath));
    return r.status.endsWith('FAILED') || r.status === 'DEPLOYED' ? r : undefined;
  });

/** The restricted profile as the kernel applies it to the container's first process, and what podman was asked for. */
function assertRestricted(container: string) {
  const status = podman(['exec', container, 'node', '-e', "process.stdout.write(require('fs').readFileSync('/proc/1/status', 'utf8'))"]);
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim();
  assert.match(field('CapEff') ?? '', /^0+$/, `${container}: capabilities left`);
  assert.match(field('CapPrm') ?? '', /^0+$/, `${container}: permitted capabilities left`);
  assert.match(field('CapBnd') ?? '', /^0+$/, `${container}: bounding capabilities left`);
  const [, effectiveUid] = (field('Uid') ?? '0 0').split(/\s+/);
  assert.notEqual(effectiveUid, '0', `${container} runs as root`);
  assert.equal(field('NoNewPrivs'), '1', `${container} may gain privileges`);
  assert.equal(field('Seccomp'), '2', `${container} has no seccomp filter`);
  const host = JSON.parse(podman(['inspect', container, '--format', '{{json .HostConfig}}'])) as Record<string, unknown>;
  assert.equal(host.Privileged, false);
  for (const mode of ['NetworkMode', 'PidMode', 'IpcMode', 'UTSMode', 'UsernsMode']) assert.notEqual(host[mode], 'host', `${container}: ${mode}`);
  assert.deepEqual(
    ((host.Binds as string[] | null) ?? []).filter((b) => b.startsWith('/')),
    [],
    `${container}: host paths mounted`,
  );
}

const podmanSecretsOf = (deploymentId: string) =>
  podman(['secret', 'ls', '--format', '{{.Name}}'])
    .split('\n')
    .filter((n) => n.includes(deploymentId));

before(async () => {
  if (skip) return;
  image = await sharedNodeImage();
});

after(() => {
  fs.rmSync(planted, { recursive: true, force: true });
});

describe('container deployer', () => {
  let server: TestServer;
  const logged: string[] = [];

  before(async () => {
    if (skip) return;
    server = await startTestServer({
      env: { AGENTPLANE_DEPLOYER: 'container', CONTAINERS_CONF, AGENTPLANE_DEPLOY_TIMEOUT_S: '120', AGENTPLANE_IMAGE_NAMESPACES: TEST_IMAGE_NAMESPACES },
      log: createLogger('debug', {}, (line) => logged.push(line)),
    });
  });

  after(async () => {
    await server?.close();
  });

  test(
    'secrets named PATH, LD_PRELOAD and CONTAINERS_CONF reach the container only: nothing planted runs on the host',
    { skip, timeout: 300_000 },
    async () => {
      const secrets = plant();
      const created = await json(
        server.api('/v2/deployments', {
          method: 'POST',
          json: {
            name: `hostile-${randomUUID().slice(0, 8)}`,
            source: 'external_docker',
            source_config: {},
            source_revision_config: { image_uri: image },
            secrets: Object.entries(secrets).map(([name, value]) => ({ name, value })),
          },
        }),
        201,
      );
      const id: string = created.id;
      try {
        const revision = await finished(server, `/v2/deployments/${id}/revisions/${created.latest_revision_id}`);
        assert.equal(revision.status, 'DEPLOYED', revision.status_message);
        assert.equal(
          fs.existsSync(marker),
          false,
          `the control plane ran what the tenant planted:\n${fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : ''}`,
        );

        // the files that carried them to podman are gone
        assert.deepEqual(fs.readdirSync(path.join(server.dataDir!, 'deployments', id, 'secrets')), []);
        // each secret, multi-line included, is the container's variable
        const url: string = (await json(server.api(`/v2/deployments/${id}`))).source_config.custom_url;
        for (const [name, value] of Object.entries(secrets)) assert.equal(await (await fetch(`${url}/env/${name}`)).text(), value, name);
        // and never on a command line, nor in the server's log
        const container = `agentplane-${id}-replica-0`;
        const createCommand = podman(['inspect', container, '--format', '{{json .Config.CreateCommand}}']);
        for (const value of Object.values(secrets)) {
          assert.ok(!createCommand.includes(value), `a secret on the command line: ${createCommand}`);
          assert.ok(!logged.join('').includes(value), 'a secret in the server log');
        }

        // the image runs as root; its container runs under the restricted profile all the same
        assertRestricted(container);

        // a restarted container finds its secrets again, under the same profile
        podman(['stop', '--time', '1', container]);
        await until('the container restarted', async () => ((await fetch(`${url}/env/MULTI_LINE`).catch(() => null))?.ok ? true : undefined), 60_000);
        assert.equal(await (await fetch(`${url}/env/MULTI_LINE`)).text(), secrets.MULTI_LINE);
        assert.equal((await fetch(`${url}/ok`)).status, 200);
        assertRestricted(container);
        assert.equal(fs.existsSync(marker), false);
      } finally {
        await json(server.api(`/v2/deployments/${id}`, { method: 'DELETE' }), 204);
        await until('the deployment to be gone', async () => ((await server.api(`/v2/deployments/${id}`)).status === 404 ? true : undefined));
      }
      assert.deepEqual(podmanSecretsOf(id), []);
    },
  );
});

/**
 * The shortest prefix of the image id, 4 hex characters at least, that no other image in podman's
 * storage shares: podman resolves a prefix only when it is unique (two images whose ids began with
 * the same 4 characters, one of them another test's, made it "image not known"). The server
 * refuses every prefix alike; this only shows podman would run it.
 */
function uniquePrefix(id: string): string {
  const others = podman(['images', '--all', '--no-trunc', '--quiet'])
    .split('\n')
    .map((line) => line.trim().replace(/^sha256:/, ''))
    .filter((other) => other && other !== id);
  let length = 4;
  while (others.some((other) => other.startsWith(id.slice(0, length)))) length += 1;
  return id.slice(0, length);
}

describe('container deployer: images (issue 83)', () => {
  let server: TestServer;
  // two tenants: B's build is what A is after
  const KEY_A = `key-a-${randomUUID()}`;
  const KEY_B = `key-b-${randomUUID()}`;
  const asA = (pathname: string, init: RequestInit & { json?: unknown } = {}) => server.api(pathname, { ...init, headers: { 'x-api-key': KEY_A } });
  const asB = (pathname: string, init: RequestInit & { json?: unknown } = {}) => server.api(pathname, { ...init, headers: { 'x-api-key': KEY_B } });

  before(async () => {
    if (skip) return;
    server = await startTestServer({
      env: {
        AGENTPLANE_DEPLOYER: 'container',
        CONTAINERS_CONF,
        AGENTPLANE_DEPLOY_TIMEOUT_S: '120',
        AGENTPLANE_IMAGE_NAMESPACES: TEST_IMAGE_NAMESPACES,
        AGENTPLANE_API_KEYS: `${KEY_A}:${randomUUID()},${KEY_B}:${randomUUID()}`,
      },
    });
  });

  after(async () => {
    await server?.close();
  });

  test("another deployment's build, by its name or a prefix of its id, is a 422 and runs nowhere", { skip, timeout: 300_000 }, async () => {
    const body = (name: string, imageUri: string) => ({
      name: `${name}-${randomUUID().slice(0, 8)}`,
      source: 'external_docker',
      source_config: {},
      source_revision_config: { image_uri: imageUri },
    });
    // tenant B's build: as agentplane tags what it builds for a deployment (the node image under that name)
    const victim = await json(asB('/v2/deployments', { method: 'POST', json: body('victim', image) }), 201);
    const build = `localhost/agentplane-deployment-${victim.id}:${victim.latest_revision_id}`;
    podman(['tag', image, build]);
    const id = podman(['image', 'inspect', '--format', '{{.Id}}', build]).trim();
    const attacker = await json(asA('/v2/deployments', { method: 'POST', json: body('attacker', image) }), 201);
    try {
      // podman itself would run each of these: a short prefix of the id is enough to it
      assert.equal(podman(['image', 'inspect', '--format', '{{.Id}}', uniquePrefix(id)]).trim(), id);
      for (const [uri, rule] of [
        [build, /reserved/],
        [id.slice(0, 4), /image id/],
        [id.slice(0, 12), /image id/],
        [id, /image id/],
        [`sha256:${id}`, /image id|digest alone/],
        ['--authfile=/etc/shadow', /starts with "-"/],
      ] as const) {
        const refused = await json(asA('/v2/deployments', { method: 'POST', json: body('thief', uri) }), 422);
        assert.match(refused.detail[0].msg, rule, uri);
        assert.deepEqual(refused.detail[0].loc, ['source_revision_config', 'image_uri']);
        const patched = await json(asA(`/v2/deployments/${attacker.id}`, { method: 'PATCH', json: { source_revision_config: { image_uri: uri } } }), 422);
        assert.match(patched.detail[0].msg, rule, uri);
      }
      const listed = await json(asA('/v2/deployments?limit=100'));
      assert.deepEqual(
        listed.resources.map((d: any) => d.id),
        [attacker.id],
      );
      const revisions = await json(asA(`/v2/deployments/${attacker.id}/revisions`));
      assert.deepEqual(
        revisions.resources.map((r: any) => r.id),
        [attacker.latest_revision_id],
      );
      // the attacker's one revision runs its own image, by id: what was checked is what runs
      const revision = await until('the revision to finish', async () => {
        const r = await json(asA(`/v2/deployments/${attacker.id}/revisions/${attacker.latest_revision_id}`));
        return r.status.endsWith('FAILED') || r.status === 'DEPLOYED' ? r : undefined;
      });
      assert.equal(revision.status, 'DEPLOYED', revision.status_message);
      const running = podman(['inspect', `agentplane-${attacker.id}-replica-0`, '--format', '{{.ImageName}} {{.Image}}']).trim();
      assert.equal(running.split(' ')[1], podman(['image', 'inspect', '--format', '{{.Id}}', image]).trim());
      // B's build by its digest in a registry A may use: podman itself finds any local image of
      // that digest, whatever repository the reference names; the deploy asks the registry instead, and fails
      const digest = podman(['image', 'inspect', '--format', '{{.Digest}}', build]).trim();
      // (also under A's own build's name, which no namespace rule holds back)
      for (const byDigest of [`quay.io/acme/agent@${digest}`, `localhost/agentplane-deployment-${attacker.id}@${digest}`]) {
        assert.equal(podman(['image', 'inspect', '--format', '{{.Id}}', byDigest]).trim(), id);
        const patched = await json(asA(`/v2/deployments/${attacker.id}`, { method: 'PATCH', json: { source_revision_config: { image_uri: byDigest } } }));
        const stolen = await until('the revision to finish', async () => {
          const r = await json(asA(`/v2/deployments/${attacker.id}/revisions/${patched.latest_revision_id}`));
          return r.status.endsWith('FAILED') || r.status === 'DEPLOYED' ? r : undefined;
        });
        assert.notEqual(stolen.status, 'DEPLOYED', `A's deployment ran B's build as ${byDigest}`);
        assert.match(stolen.status_message, /could not be pulled|under that name/, byDigest);
      }
    } finally {
      podman(['untag', id, build]);
      for (const [as, d] of [
        [asA, attacker.id],
        [asB, victim.id],
      ] as const) {
        await json(as(`/v2/deployments/${d}`, { method: 'DELETE' }), 204);
        await until('the deployment to be gone', async () => ((await as(`/v2/deployments/${d}`)).status === 404 ? true : undefined), 120_000);
      }
    }
  });
});

describe('kube-local deployer', () => {
  let server: TestServer;
  let postgresImage = '';

  before(async () => {
    if (skip) return;
    // every deployment has its PostgreSQL (played by kube-local), from an image built here
    postgresImage = await sharedPostgresImage();
    server = await startTestServer({
      env: {
        AGENTPLANE_DEPLOYER: 'kube-local',
        CONTAINERS_CONF,
        AGENTPLANE_DEPLOY_TIMEOUT_S: '120',
        AGENTPLANE_KUBE_POSTGRES_IMAGE: postgresImage,
        AGENTPLANE_IMAGE_NAMESPACES: TEST_IMAGE_NAMESPACES,
      },
    });
  });

  after(async () => {
    await server?.close();
  });

  /**
   * Deletes a deployment and waits until it is gone: a victim deleted while its revision still
   * played, with the server then closed, left its pods, its PostgreSQL volume and its secrets in
   * podman after every run (the control plane resumes a cleanup at its next start; this test's
   * data directory has none).
   */
  const remove = async (id: string) => {
    await json(server.api(`/v2/deployments/${id}`, { method: 'DELETE' }), 204);
    await until('the deployment to be gone', async () => ((await server.api(`/v2/deployments/${id}`)).status === 404 ? true : undefined), 180_000);
  };

  const deployment = (name: string, sourceConfig: object, secrets: object[] = []) =>
    server.api('/v2/deployments', {
      method: 'POST',
      json: {
        name: `${name}-${randomUUID().slice(0, 8)}`,
        source: 'external_docker',
        source_config: sourceConfig,
        source_revision_config: { image_uri: image },
        secrets,
      },
    });

  test("another deployment's secret, and every rule of the restricted profile, are a 422 naming the field", { skip, timeout: 300_000 }, async () => {
    const victim = await json(deployment('victim', {}, [{ name: 'TOKEN', value: 'victim-token' }]), 201);
    try {
      for (const [what, config, field, rule] of REFUSED) {
        const named = naming(config, victim.id);
        const refused = await json(deployment('attacker', named), 422);
        const issue = refused.detail.find((i: any) => where(i) === at(field));
        assert.ok(issue, `${what}: ${JSON.stringify(refused)}`);
        if (issue.type !== 'extra_forbidden') assert.match(issue.msg, rule, what);
      }
      // the victim's build in podman's storage (issue 83): its name, or a prefix of its id that
      // podman itself resolves, as the attacker's sidecar or init container, is a 422 here too
      const build = `localhost/agentplane-deployment-${victim.id}:${victim.latest_revision_id}`;
      podman(['tag', image, build]);
      const id = podman(['image', 'inspect', '--format', '{{.Id}}', build]).trim();
      try {
        assert.equal(podman(['image', 'inspect', '--format', '{{.Id}}', uniquePrefix(id)]).trim(), id);
        for (const group of ['sidecars', 'init_containers'])
          for (const [stolen, rule] of [
            [build, /reserved/],
            [id.slice(0, 4), /image id/],
          ] as const) {
            const refused = await json(deployment('attacker', { resource_spec: { [group]: [{ name: 'side', image: stolen }] } }), 422);
            assert.deepEqual(refused.detail[0].loc, ['source_config', 'resource_spec', group, 0, 'image']);
            assert.match(refused.detail[0].msg, rule);
          }
      } finally {
        podman(['untag', id, build]);
      }
      const listed = await json(server.api('/v2/deployments?limit=100'));
      assert.deepEqual(
        listed.resources.map((d: any) => d.id),
        [victim.id],
      );
    } finally {
      await remove(victim.id);
    }
  });

  test(
    "a sidecar reading the deployment's own secret runs under the restricted profile; a Secret volume is a 422 in a sentence",
    { skip, timeout: 300_000 },
    async () => {
      const created = await json(deployment('restricted', {}, [{ name: 'AGENT_TOKEN', value: 'tok-own' }]), 201);
      const id: string = created.id;
      const own = `agentplane-${id}-secrets`;
      try {
        await finished(server, `/v2/deployments/${id}/revisions/${created.latest_revision_id}`);
        const sidecar = {
          name: 'beat',
          image,
          imagePullPolicy: 'Never',
          command: ['/usr/bin/node'],
          args: ['/app/sidecar.js'],
          env: [
            { name: 'BEAT_FILE', value: '/tmp/beat.txt' },
            { name: 'OWN_TOKEN', valueFrom: { secretKeyRef: { name: own, key: 'AGENT_TOKEN' } } },
          ],
        };
        const patched = await json(
          server.api(`/v2/deployments/${id}`, { method: 'PATCH', json: { source_config: { resource_spec: { sidecars: [sidecar] } } } }),
        );
        const revision = await finished(server, `/v2/deployments/${id}/revisions/${patched.latest_revision_id}`);
        assert.equal(revision.status, 'DEPLOYED', revision.status_message);

        // podman's own view of each container: not root, no capability, no privilege escalation
        const pod = `agentplane-${id}-pod-0`;
        for (const name of [`${pod}-server`, `${pod}-beat`]) {
          const seen = JSON.parse(
            podman([
              'inspect',
              name,
              '--format',
              '{"user": "{{.Config.User}}", "caps": {{json .EffectiveCaps}}, "opts": {{json .HostConfig.SecurityOpt}}, "privileged": {{.HostConfig.Privileged}}}',
            ]),
          );
          // the image's user 1000 and its group 1000: never group 0, which owns much of an image's files
          assert.equal(seen.user, '1000:1000', name);
          assert.deepEqual(seen.caps ?? [], [], name);
          assert.ok(seen.opts.includes('no-new-privileges'), `${name}: ${JSON.stringify(seen.opts)}`);
          assert.equal(seen.privileged, false, name);
        }
        assert.match(podman(['inspect', `${pod}-beat`, '--format', '{{range .Config.Env}}{{println .}}{{end}}']), /^OWN_TOKEN=tok-own$/m);
        // a sidecar naming another image by its digest in a registry it may use: kube play would run
        // whatever local image has that digest (another tenant's build); the revision fails before anything plays
        const byDigest = `quay.io/acme/agent@${podman(['image', 'inspect', '--format', '{{.Digest}}', image]).trim()}`;
        const thief = await json(
          server.api(`/v2/deployments/${id}`, {
            method: 'PATCH',
            json: { source_config: { resource_spec: { sidecars: [{ ...sidecar, image: byDigest, imagePullPolicy: undefined }] } } },
          }),
        );
        const stolen = await finished(server, `/v2/deployments/${id}/revisions/${thief.latest_revision_id}`);
        assert.notEqual(stolen.status, 'DEPLOYED', 'a sidecar ran a local image by its digest alone');
        assert.match(stolen.status_message, /under that name|pull/);
        assert.match(podman(['inspect', `${pod}-beat`, '--format', '{{.State.Status}} {{.ImageName}}']), new RegExp(`^running ${image}`));
        // the kernel's view of each container's first process: seccomp filtering (RuntimeDefault), no uid or gid 0
        for (const name of [`${pod}-server`, `${pod}-beat`]) {
          const state = podman(['inspect', name, '--format', '{{.State.Status}} {{.State.ExitCode}}']).trim();
          assert.match(state, /^running /, `${name} is ${state}: ${podman(['logs', '--tail', '20', name])}`);
          const status = podman(['exec', name, 'node', '-e', "process.stdout.write(require('fs').readFileSync('/proc/1/status', 'utf8'))"]);
          const field = (key: string) => new RegExp(`^${key}:\\s*(.*)$`, 'm').exec(status)?.[1]?.trim().split(/\s+/) ?? [];
          assert.deepEqual(field('Seccomp'), ['2'], `${name}: no seccomp filter`);
          assert.ok(field('Uid').length === 4 && !field('Uid').includes('0'), `${name}: uid ${field('Uid')}`);
          assert.ok(field('Gid').length === 4 && !field('Gid').includes('0'), `${name}: gid ${field('Gid')}`);
          assert.ok(!field('Groups').includes('0'), `${name}: supplementary groups ${field('Groups')}`);
        }
        // whatever way another deployment's Secret is spelt, A's PATCH is refused and A's containers keep their own environment
        const victim = await json(deployment('victim', {}, [{ name: 'TOKEN', value: 'victim-token' }]), 201);
        try {
          for (const key of ['secretKeyRef', 'SecretKeyRef', 'secretkeyref', 'SECRETKEYREF']) {
            const stolen = { ...sidecar, env: [{ name: 'STOLEN', valueFrom: { [key]: { name: `agentplane-${victim.id}-secrets`, key: 'TOKEN' } } }] };
            const refused = await json(
              server.api(`/v2/deployments/${id}`, { method: 'PATCH', json: { source_config: { resource_spec: { sidecars: [stolen] } } } }),
              422,
            );
            assert.deepEqual(refused.detail[0].loc.slice(-2), key === 'secretKeyRef' ? ['secretKeyRef', 'name'] : ['valueFrom', key]);
          }
          for (const key of ['secretRef', 'SecretRef', 'SECRETREF'])
            await json(
              server.api(`/v2/deployments/${id}`, {
                method: 'PATCH',
                json: { source_config: { resource_spec: { sidecars: [{ ...sidecar, envFrom: [{ [key]: { name: `agentplane-${victim.id}-secrets` } }] }] } } },
              }),
              422,
            );
          // a pod annotation turning seccomp off, in any case
          for (const key of ['seccomp.security.alpha.kubernetes.io/pod', 'Seccomp.Security.Alpha.Kubernetes.IO/pod', 'io.podman.annotations.seccomp/beat'])
            await json(
              server.api(`/v2/deployments/${id}`, {
                method: 'PATCH',
                json: { source_config: { resource_spec: { sidecars: [sidecar], annotations: { [key]: 'unconfined' } } } },
              }),
              422,
            );
          const revisions = await json(server.api(`/v2/deployments/${id}/revisions`));
          assert.equal(revisions.resources[0].id, thief.latest_revision_id, 'no revision was made');
          const env = podman(['inspect', `${pod}-beat`, '--format', '{{range .Config.Env}}{{println .}}{{end}}']);
          assert.doesNotMatch(env, /victim-token|STOLEN/);
        } finally {
          await remove(victim.id);
        }

        // the deployment's own Secret as a volume: podman 4 cannot play it (its kube play panics); refused at the API in a sentence
        const refused = await json(
          server.api(`/v2/deployments/${id}`, {
            method: 'PATCH',
            json: { source_config: { resource_spec: { volumes: [{ name: 'own', secret: { secretName: own } }] } } },
          }),
          422,
        );
        assert.deepEqual(refused.detail[0].loc, ['source_config', 'resource_spec', 'volumes', 0, 'secret']);
        assert.match(refused.detail[0].msg, /cannot play a secret volume/);
        assert.doesNotMatch(refused.detail[0].msg, /goroutine|panic/);
      } finally {
        await remove(id);
      }
    },
  );
});
