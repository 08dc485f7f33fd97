// agentplane-server build of a project whose build runs prebuilt native addons (issue 65,
// point 4): swc's and rolldown's bindings (`optionalDependencies` npm picks for this platform,
// `.node` files linked against glibc) and esbuild's binary. Before, the base image held only
// the libraries node links, and swc's and rolldown's bindings failed to load in the build:
// "librt.so.1: cannot open shared object file".
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../support/server.ts';
import { buildWithCli, lastReply, podman, removeImages, serveImage, testTag, writeLockfile } from '../../containers/support.ts';

/** The version agentplane's own lockfile installs of `name` (so the host's npm cache has it). */
function lockedVersion(name: string): string {
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
  return lock.packages[`node_modules/${name}`]!.version;
}

/** A project whose `prepare` strips its TypeScript with swc, bundles it with esbuild, then again with rolldown. */
function nativeToolsProject(): string {
  const dir = tempDir('agentplane-native-build-');
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'native-build',
        private: true,
        type: 'module',
        scripts: { prepare: 'node build.mjs' },
        devDependencies: { '@swc/core': '1.16.22', esbuild: lockedVersion('esbuild'), rolldown: lockedVersion('rolldown') },
      },
      null,
      2,
    ),
  );
  fs.writeFileSync(
    path.join(dir, 'build.mjs'),
    [
      "import fs from 'node:fs';",
      "import { transformFileSync } from '@swc/core';",
      "import { buildSync } from 'esbuild';",
      "import { rolldown } from 'rolldown';",
      "fs.mkdirSync('dist', { recursive: true });",
      "const stripped = transformFileSync('src/graph.ts', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }).code;",
      "fs.writeFileSync('dist/swc.mjs', stripped);",
      "buildSync({ entryPoints: ['dist/swc.mjs'], bundle: true, format: 'esm', platform: 'node', outfile: 'dist/esbuild.mjs' });",
      "const bundle = await rolldown({ input: 'dist/esbuild.mjs', platform: 'node' });",
      "await bundle.write({ file: 'dist/graph.mjs', format: 'esm' });",
      '',
    ].join('\n'),
  );
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(
    path.join(dir, 'src', 'graph.ts'),
    [
      'interface State { messages: { content: unknown }[] }',
      'export async function echo(state: State): Promise<{ messages: { role: string; content: string }[] }> {',
      "  return { messages: [{ role: 'assistant', content: `swc, esbuild, rolldown: ${String(state.messages.at(-1)?.content)}` }] };",
      '}',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'langgraph.json'), JSON.stringify({ graphs: { echo: './dist/graph.mjs:echo' } }));
  writeLockfile(dir);
  return dir;
}

describe('agentplane-server build of a project whose build runs native addons', () => {
  const tag = testTag('native-addons');
  const containers: string[] = [];
  after(() => {
    for (const container of containers) podman('rm', '--force', container);
    removeImages(tag);
  });

  it('builds with swc, esbuild and rolldown in the image, and serves what they made', { timeout: 900_000 }, async () => {
    const project = nativeToolsProject();
    const build = buildWithCli(tag, path.join(project, 'langgraph.json'));
    assert.equal(build.status, 0, `${build.stdout.split('\n').slice(-60).join('\n')}\n${build.stderr}`);
    const url = await serveImage(tag, containers);
    assert.equal(await lastReply(url, 'echo', 'hello'), 'swc, esbuild, rolldown: hello');
  });
});
