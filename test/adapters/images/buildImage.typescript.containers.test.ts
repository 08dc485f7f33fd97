// agentplane-server build of projects that compile themselves (issue 65, point 4): the
// project's install and build run without the server layer's NODE_ENV=production, so npm
// installs the devDependencies they need (tsc); a step that fails says which it was and shows
// its output. Before, `npm ci` left typescript out and a `prepare: tsc` project's image failed
// to build at `RUN npm ci`, and agentplane's own checkout (whose `prepare` runs tsc) with it.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../support/server.ts';
import { buildImage } from '../../../src/adapters/images/buildImage.ts';
import { EngineError } from '../../../src/adapters/images/engine.ts';
import { buildWithCli, echoProject, lastReply, podman, removeImages, serveImage, testEngine, testTag, writeLockfile } from '../../containers/support.ts';

const TYPESCRIPT = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies
  .typescript!;

/** A TypeScript project whose `prepare` compiles src/ into dist/ with tsc, a devDependency, and whose graph is the compiled file. */
function typescriptProject(): string {
  const dir = tempDir('agentplane-ts-project-');
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'ts-project', private: true, type: 'module', scripts: { prepare: 'tsc' }, devDependencies: { typescript: TYPESCRIPT } }, null, 2),
  );
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { outDir: 'dist', module: 'nodenext', target: 'es2022', strict: true }, include: ['src'] }),
  );
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(
    path.join(dir, 'src', 'graph.ts'),
    [
      'interface State { messages: { content: unknown }[] }',
      'export async function echo(state: State) {',
      "  return { messages: [{ role: 'assistant', content: `compiled: ${String(state.messages.at(-1)?.content)}` }] };",
      '}',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'langgraph.json'), JSON.stringify({ graphs: { echo: './dist/graph.js:echo' } }));
  writeLockfile(dir);
  return dir;
}

describe('agentplane-server build of projects that compile themselves', () => {
  const tags: string[] = [];
  const containers: string[] = [];
  after(() => {
    for (const container of containers) podman('rm', '--force', container);
    removeImages(...tags);
  });

  it('a TypeScript project whose install runs tsc (a devDependency) builds into an image that serves its compiled graph', { timeout: 900_000 }, async () => {
    const tag = testTag('typescript');
    tags.push(tag);
    const project = typescriptProject();
    const build = buildWithCli(tag, path.join(project, 'langgraph.json'));
    assert.equal(build.status, 0, `${build.stdout}\n${build.stderr}`);
    const url = await serveImage(tag, containers);
    assert.equal(await lastReply(url, 'echo', 'hello'), 'compiled: hello');
    // the image serves as production: the server layer's NODE_ENV is the container's
    assert.match(podman('image', 'inspect', '--format', '{{.Config.Env}}', tag), /NODE_ENV=production/);
  });

  it('a step that fails says which step it was and shows its output', { timeout: 600_000 }, async () => {
    const tag = testTag('failing-step');
    tags.push(tag);
    const failing = buildImage(testEngine(), {
      tag,
      projectDir: echoProject('failing'),
      configPath: 'langgraph.json',
      packageRoot: ROOT,
      buildCommand: `node -e "console.error('the build of this project broke: marker-7f3a'); process.exit(3)"`,
    });
    await assert.rejects(failing, (err: unknown) => {
      assert.ok(err instanceof EngineError, String(err));
      assert.match(err.message, /The image build failed at step "RUN node -e .*" \(the project's build\)/);
      assert.match(err.message, /the build of this project broke: marker-7f3a/);
      assert.doesNotMatch(err.message.split('\n')[0]!, /unset NODE_ENV/);
      return true;
    });
  });
});
