// The server layer of agentplane's images is built again when its base changes (issue 65,
// point 4). Its tag named only agentplane's files, so a base rebuilt with more libraries (or
// from an upgraded Node.js) was never used: the server image on the old base was found under
// the same tag and every project's image went on being built on it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../support/server.ts';
import { ensureServerImage } from '../../../src/adapters/images/buildImage.ts';
import { baseImageTag } from '../../../src/adapters/images/baseImage.ts';
import type { ContainerEngine } from '../../../src/adapters/images/engine.ts';

/** An installed agentplane as small as serverFiles takes: a manifest and a compiled server. */
function packageRoot(): string {
  const dir = tempDir('agentplane-server-files-');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'agentplane-server', version: '0.0.0' }));
  fs.mkdirSync(path.join(dir, 'dist', 'src', 'cli'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'dist', 'src', 'cli', 'main.js'), '');
  return dir;
}

/** The files under `dir`, relative to it, sorted. */
const filesUnder = (dir: string): string[] =>
  (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();

/** An engine that has every base image and no server image, and keeps the Containerfiles it builds and the files of their contexts. */
function recordingEngine() {
  const built: { tag: string; containerfile: string; context: string[] }[] = [];
  const engine = {
    name: 'podman',
    hasImage: async (ref: string) => ref.startsWith('localhost/agentplane-base:') || built.some((b) => b.tag === ref),
    build: async (args: string[]) => {
      const containerfile = args[args.indexOf('-f') + 1]!;
      built.push({ tag: args[args.indexOf('-t') + 1]!, containerfile: fs.readFileSync(containerfile, 'utf8'), context: filesUnder(args.at(-1)!) });
      return '';
    },
  } as unknown as ContainerEngine;
  return { engine, built };
}

describe('the server image', () => {
  it('is a new image, on the new base, when the base changes (another Node.js binary); the same one while neither changes', async () => {
    const root = packageRoot();
    const { engine, built } = recordingEngine();
    // the same Node.js under another name: another base image tag
    const otherNode = path.join(tempDir('agentplane-other-node-'), 'node');
    fs.symlinkSync(process.execPath, otherNode);
    assert.notEqual(baseImageTag(otherNode), baseImageTag(process.execPath));

    const first = await ensureServerImage(engine, root, {}, process.execPath);
    const again = await ensureServerImage(engine, root, {}, process.execPath);
    const onOtherBase = await ensureServerImage(engine, root, {}, otherNode);

    assert.equal(again, first, 'built once while its files and base stay');
    assert.notEqual(onOtherBase, first, 'a new base makes a new server image');
    assert.deepEqual(
      built.map((b) => b.containerfile.split('\n')[0]),
      [`FROM ${baseImageTag(process.execPath)}`, `FROM ${baseImageTag(otherNode)}`],
    );
  });

  // a new build of agentplane (CI's, each run) changes its own files, rarely its ~300 MB of
  // dependencies: in a step of their own, first, the engine reuses their copy (its cache of a
  // COPY is keyed by the files' content) and copies only agentplane's files again
  it("copies the run-time dependencies in a step of their own, before agentplane's files", async () => {
    const root = packageRoot();
    const manifest = { name: 'agentplane-server', version: '0.0.0', dependencies: { dep: '1.0.0' } };
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest));
    fs.mkdirSync(path.join(root, 'node_modules', 'dep'), { recursive: true });
    fs.writeFileSync(path.join(root, 'node_modules', 'dep', 'package.json'), JSON.stringify({ name: 'dep', version: '1.0.0' }));
    const { engine, built } = recordingEngine();
    await ensureServerImage(engine, root, {}, process.execPath);
    const [server] = built;
    const copies = server!.containerfile.split('\n').filter((line) => line.startsWith('COPY '));
    assert.deepEqual(copies, ['COPY dependencies/ /opt/agentplane/', 'COPY agentplane/ /opt/agentplane/']);
    assert.deepEqual(
      server!.context.filter((f) => f !== 'Containerfile'),
      ['agentplane/dist/src/cli/main.js', 'agentplane/package.json', 'dependencies/node_modules/dep/package.json'].map((f) => f.split('/').join(path.sep)),
    );
  });

  it('is built once when two builds ask for it together (two deployments created at once), both getting its tag', async () => {
    const root = packageRoot();
    const { engine, built } = recordingEngine();
    const [a, b] = await Promise.all([ensureServerImage(engine, root, {}, process.execPath), ensureServerImage(engine, root, {}, process.execPath)]);
    assert.equal(a, b);
    assert.deepEqual(
      built.map((x) => x.tag),
      [a],
    );
  });
});
