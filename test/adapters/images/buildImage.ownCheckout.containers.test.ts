// agentplane-server build of agentplane's own checkout (issue 65, point 4): a clean clone at
// HEAD, whose `npm ci` runs `prepare` (tsc, then Vite's build of the dashboard with rolldown's
// native binding and tailwind's), becomes an image that serves its example graphs. Before,
// the install stopped at the dashboard's build: the binding was installed but could not load,
// the base image lacking librt.so.1 (glibc beyond what node links; see baseImage.ts).
//
// Its time: the base and server layers are built once per machine and reused (their tags name
// their inputs: this Node.js and its libraries, this agentplane's files); the project's layer,
// `npm ci` of the whole checkout from the registry with its build, is made afresh, ~3–4 min.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../support/server.ts';
import { CONTAINERS_CONF, lastReply, nodeInImage, podman, removeImages, serveImage, testTag } from '../../containers/support.ts';

/** A clean clone of this repository at HEAD: what is committed, no node_modules, no dist/. */
function cloneAtHead(): string {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  // a stable folder name: the project's place in the image, /deps/agentplane
  const dir = path.join(tempDir('agentplane-own-checkout-'), 'agentplane');
  execFileSync('git', ['clone', '--quiet', '--no-checkout', ROOT, dir], { stdio: 'ignore' });
  execFileSync('git', ['checkout', '--quiet', '--detach', head], { cwd: dir, stdio: 'ignore' });
  return dir;
}

describe("agentplane-server build of agentplane's own checkout", () => {
  const tag = testTag('own-checkout');
  const containers: string[] = [];
  after(() => {
    for (const container of containers) podman('rm', '--force', container);
    removeImages(tag);
  });

  it('builds (npm ci runs its tsc and Vite build in the image) into an image that serves its graphs', { timeout: 1_200_000 }, async () => {
    const checkout = cloneAtHead();
    // as a user runs it: in the checkout, the project file (agentplane.json) found there
    const build = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'agentplane.js'), 'build', '-t', tag, '--engine', 'podman'], {
      cwd: checkout,
      env: { ...process.env, CONTAINERS_CONF },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(build.status, 0, `${build.stdout.split('\n').slice(-60).join('\n')}\n${build.stderr}`);
    assert.match(build.stdout, /\(install: npm ci\)/);

    // the install's `prepare` built the checkout whole: its server and its dashboard (Vite)
    const built = nodeInImage(
      tag,
      "const fs = require('fs'); for (const f of ['dist/src/cli/main.js', 'dist/ui/index.html']) console.log(f, fs.existsSync('/deps/agentplane/' + f))",
    );
    assert.deepEqual(built.split('\n'), ['dist/src/cli/main.js true', 'dist/ui/index.html true']);

    const url = await serveImage(tag, containers);
    const graphs = Object.keys((JSON.parse(fs.readFileSync(path.join(checkout, 'agentplane.json'), 'utf8')) as { graphs: object }).graphs);
    const assistants = (await (
      await fetch(`${url}/assistants/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"limit": 100}' })
    ).json()) as { graph_id: string }[];
    assert.deepEqual(assistants.map((a) => a.graph_id).sort(), [...graphs].sort());
    assert.equal(await lastReply(url, 'echo', 'hello from the own image'), 'hello from the own image');
  });
});
