// The container deployer's image (issue 83), against a fake podman on PATH that records every
// call: a revision stored before the image rules (another deployment's build, an id prefix, an
// option) fails its deploy saying why, and podman never hears of that image; an admitted one
// reaches podman in full, after "--", and runs by the id podman resolved.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ContainerTarget } from '../../../../src/adapters/deploy-targets/container/containerTarget.ts';
import { ContainerEngine } from '../../../../src/adapters/images/engine.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { CollectionControlPlane } from '../../../../src/adapters/embedded/collectionControlPlane.ts';
import { createLogger } from '../../../../src/runtime/logging/logger.ts';
import { DEFAULT_WORKLOAD_POLICY } from '../../../../src/domain/control-plane/workloadPolicy.ts';
import type { DeploymentRecord, RevisionRecord } from '../../../../src/domain/control-plane/records.ts';
import { tempDir } from '../../../support/tempDirs.ts';

const dir = tempDir('agentplane-fake-podman-');
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const calls = path.join(dir, 'calls');
const IMAGE_ID = 'f3a1c9d27b4e8a6f0c2d5e7b9a1c3e5f7a9b1d3f5e7c9a1b3d5f7e9a1c3b5d7f';
const current = path.join(dir, 'current');
const present = path.join(dir, 'present');
const digestNames = path.join(dir, 'digestNames');
// `image inspect NAME` answers the id in "current" (the name's tag: it may move), and the names it is
// stored under when asked for them; `image inspect ID`
// answers an id listed in "present" (what the storage holds). Everything else succeeds: the replica
// never answers /ok, so a deploy ends after its run.
fs.writeFileSync(
  path.join(dir, 'podman'),
  `#!/bin/sh
echo "$*" >> "${calls}"
if [ "$1 $2" = "image inspect" ]; then
  ref=$(eval echo "\\\${$#}")
  case "$ref" in
    *[!0-9a-f]*) id=$(cat "${current}") ;;
    *) grep -qx "$ref" "${present}" && echo "$ref" && exit 0 || exit 125 ;;
  esac
  # asked for its names: stored under the tag asked for, and under the digest names in "digestNames" (else the one asked for)
  case "$*@$ref" in
    *RepoTags*@*@*) printf '%s\\t[]\\t["%s"]\\n' "$id" "$(cat "${digestNames}" 2>/dev/null || echo "$ref")" ;;
    *RepoTags*) printf '%s\\t["%s"]\\t[]\\n' "$id" "$ref" ;;
    *) echo "$id" ;;
  esac
  exit 0
fi
case "$1 $2" in
  "ps --all") echo '[]' ;;
esac
exit 0
`,
  { mode: 0o755 },
);
const tagged = (id: string, ...alsoPresent: string[]) => {
  fs.writeFileSync(current, `${id}\n`);
  fs.writeFileSync(present, [id, ...alsoPresent].join('\n') + '\n');
};
tagged(IMAGE_ID);

/** Each tenant's key digests, as the control plane's key ring answers them. */
const digestsByTenant = new Map<string, string[]>();

async function containerTarget() {
  const repo = new CollectionControlPlane(await openJournalStore({ dataDir: null }));
  const engine = new ContainerEngine({ name: 'podman', env: { PATH: `${dir}:/usr/bin:/bin` }, containersConf: null });
  return new ContainerTarget(
    repo,
    {
      root: path.join(dir, `root-${randomUUID()}`),
      workspaces: path.join(dir, 'workspaces'),
      isolation: 'none',
      baseEnv: {},
      engine,
      packageRoot: dir,
      buildTimeoutMs: 10_000,
      startTimeoutMs: 1_000,
      logCapBytes: 1024 * 1024,
      policy: DEFAULT_WORKLOAD_POLICY,
      keyDigestsOf: (tenant) => digestsByTenant.get(tenant) ?? [],
    },
    createLogger('silent'),
  );
}

function revisionOf(imageUri: string) {
  const deployment = {
    id: randomUUID(),
    tenant_id: randomUUID(),
    name: 'd',
    source: 'external_docker',
    source_config: { resource_spec: null, custom_url: null },
    secrets: [],
    active_revision_id: null,
  } as unknown as DeploymentRecord;
  const revision = {
    id: randomUUID(),
    deployment_id: deployment.id,
    source_revision_config: { image_uri: imageUri },
    redeploy_of: null,
  } as unknown as RevisionRecord;
  return { deployment, revision };
}

async function deployWith(imageUri: string, target?: ContainerTarget, deployed = revisionOf(imageUri)) {
  fs.rmSync(calls, { force: true });
  const outcome = await (target ?? (await containerTarget())).deploy(deployed.deployment, deployed.revision, new AbortController().signal);
  return { outcome, calls: fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : [] };
}

const runOf = (calls: string[]) => calls.find((c) => c.startsWith('run '));

test('a stored image the rules refuse fails the deploy, and podman never hears of it', async () => {
  for (const uri of [`localhost/agentplane-deployment-${randomUUID()}:rev`, 'abcd', '--authfile=/etc/shadow', `sha256:${IMAGE_ID}`]) {
    const { outcome, calls } = await deployWith(uri);
    assert.ok(!outcome.ok && /^Deploy failed: source_revision_config\.image_uri is refused/.test(outcome.reason), `${uri}: ${JSON.stringify(outcome)}`);
    assert.deepEqual(
      calls.filter((c) => c.includes(uri)),
      [],
      uri,
    );
  }
});

test('an admitted image reaches podman in full after "--", and runs by the id podman resolved', async () => {
  const { calls } = await deployWith('node:22');
  assert.ok(
    calls.some((c) => /^image inspect --format .*RepoTags.* -- docker\.io\/library\/node:22$/.test(c)),
    calls.join('\n'),
  );
  const run = calls.find((c) => c.startsWith('run '));
  assert.ok(run?.endsWith(` -- ${IMAGE_ID}`), run);
  assert.equal(
    calls.some((c) => / node:22$/.test(c)),
    false,
    'a short name reached podman',
  );
});

test("an image by digest runs only when stored under that repository: podman finds any local image of the digest (another tenant's build)", async () => {
  const digest = `sha256:${'c'.repeat(64)}`;
  // what podman 4.3 answers `image inspect quay.io/acme/agent@<d>` with when only B's build has digest d
  fs.writeFileSync(digestNames, `localhost/agentplane-deployment-${randomUUID()}@${digest}`);
  try {
    const { outcome, calls } = await deployWith(`quay.io/acme/agent@${digest}`);
    assert.ok(!outcome.ok && /is not in the engine's storage under that name/.test(outcome.reason), JSON.stringify(outcome));
    assert.equal(runOf(calls), undefined, 'the other image ran');
    assert.ok(
      calls.some((c) => c === `pull -- quay.io/acme/agent@${digest}`),
      'the registry is asked for it',
    );
    // under its own build's name, which no namespace rule holds back: B's digest is still B's image
    const own = revisionOf('');
    own.revision.source_revision_config.image_uri = `localhost/agentplane-deployment-${own.deployment.id}@${digest}`;
    const ownName = await deployWith('', undefined, own);
    assert.ok(!ownName.outcome.ok && /under that name/.test(ownName.outcome.reason), JSON.stringify(ownName.outcome));
    assert.equal(runOf(ownName.calls), undefined, 'the other image ran under its own name');
    // stored under that repository (pulled from it), it runs
    fs.writeFileSync(digestNames, `quay.io/acme/agent@${digest}`);
    assert.ok(runOf((await deployWith(`quay.io/acme/agent@${digest}`)).calls)?.endsWith(` -- ${IMAGE_ID}`));
  } finally {
    fs.rmSync(digestNames, { force: true });
  }
});

test('a revision runs the image it was first deployed with, though its tag moved; gone, it says so', async () => {
  const MOVED = 'a'.repeat(64);
  tagged(IMAGE_ID);
  const target = await containerTarget();
  const deployed = revisionOf('ghcr.io/acme/agent:1');
  assert.ok(runOf((await deployWith('', target, deployed)).calls)?.endsWith(` -- ${IMAGE_ID}`));
  // the tag now names another image: the same revision (a restart, a rollback to it) still runs the first
  tagged(MOVED, IMAGE_ID);
  assert.ok(runOf((await deployWith('', target, deployed)).calls)?.endsWith(` -- ${IMAGE_ID}`));
  // a new revision of the same name runs what the tag names now
  assert.ok(runOf((await deployWith('', target, { ...deployed, revision: { ...deployed.revision, id: randomUUID() } })).calls)?.endsWith(` -- ${MOVED}`));
  // the pinned image removed from the engine: the revision fails saying so, and nothing runs
  tagged(MOVED);
  const gone = await deployWith('', target, deployed);
  assert.ok(!gone.outcome.ok && /is gone from the engine/.test(gone.outcome.reason), JSON.stringify(gone.outcome));
  assert.equal(runOf(gone.calls), undefined);
  tagged(IMAGE_ID);
});

test("the server runs with agent-server auth on and its tenant's key digests, no other tenant's (issue 83: quotas bind there)", async () => {
  const deployed = revisionOf('ghcr.io/acme/agent:1');
  const [mine, theirs] = [randomUUID().replace(/-/g, '').repeat(2), randomUUID().replace(/-/g, '').repeat(2)];
  digestsByTenant.set(deployed.deployment.tenant_id, [mine]);
  digestsByTenant.set(randomUUID(), [theirs]);
  const run = runOf((await deployWith('', undefined, deployed)).calls);
  assert.ok(run?.includes('--env AGENTPLANE_AGENT_SERVER_AUTH=1'), run);
  assert.ok(run?.includes(`--env AGENTPLANE_API_KEY_DIGESTS=${mine}:${deployed.deployment.tenant_id}`), run);
  assert.equal(run?.includes(theirs), false, "another tenant's key reached the server");
});

test("the tenant's secrets named as the server's auth or settings never reach the container: podman puts a secret over an --env", async () => {
  const deployed = revisionOf('ghcr.io/acme/agent:1');
  digestsByTenant.set(deployed.deployment.tenant_id, ['ab'.repeat(32)]);
  deployed.deployment.secrets = [
    { name: 'AGENTPLANE_AGENT_SERVER_AUTH', value: '0' },
    { name: 'AGENTPLANE_API_KEY_DIGESTS', value: '' },
    { name: 'AGENTPLANE_CONTROL_PLANE', value: 'on' },
    { name: 'AGENTPLANE_PUBLIC_URL', value: 'https://elsewhere.example' },
    { name: 'GREETING', value: 'hello' },
  ];
  const { calls } = await deployWith('', undefined, deployed);
  const run = runOf(calls);
  assert.ok(run?.includes('--env AGENTPLANE_AGENT_SERVER_AUTH=1'), run);
  assert.match(run!, /--secret \S+,type=env,target=GREETING/, 'the other secrets still reach it');
  assert.doesNotMatch(run!, /target=AGENTPLANE_(AGENT_SERVER_AUTH|API_KEY_DIGESTS|CONTROL_PLANE|PUBLIC_URL)\b/, run);
  assert.ok(run?.includes('--env AGENTPLANE_CONTROL_PLANE=off'), run);
});
