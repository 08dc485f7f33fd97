// What of a project reaches its image (images/buildContext.ts): never .git or a dotenv file,
// and the project's .dockerignore as Docker reads it. The image build itself, on podman, is
// test/adapters/images/buildImage.containers.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { stageProjectContext } from '../../../src/adapters/images/buildContext.ts';
import { impliedInstallCommand } from '../../../src/adapters/images/buildImage.ts';
import { tempDir } from '../../support/server.ts';

function project(files: Record<string, string>): string {
  const dir = tempDir('agentplane-context-');
  for (const [file, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

const filesIn = (dir: string): string[] =>
  (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => fs.statSync(path.join(dir, f)).isFile())
    .map((f) => f.split(path.sep).join('/'))
    .sort();

test('dotenv files at any depth and .git never reach the image; the project env file stands empty so the project still loads', () => {
  const dir = project({
    'langgraph.json': JSON.stringify({ graphs: {}, env: './.env' }),
    '.env': 'OPENAI_API_KEY=sk-1',
    'packages/api/.env.local': 'TOKEN=t',
    '.git/config': '[core]',
    'src/graph.ts': 'export {}',
    'environment.ts': 'kept: not a dotenv file',
  });
  const target = tempDir('agentplane-context-out-');
  const staged = stageProjectContext(dir, 'langgraph.json', target);
  assert.deepEqual(filesIn(target), ['.env', 'environment.ts', 'langgraph.json', 'src/graph.ts']);
  assert.equal(fs.readFileSync(path.join(target, '.env'), 'utf8'), '');
  assert.deepEqual(staged, { leftOut: ['.env', '.git/', 'packages/api/.env.local'], emptiedEnvFile: '.env' });
});

test('.dockerignore as Docker reads it: anchored at the root, **, exceptions (even inside a folder left out), comments', () => {
  const dir = project({
    'langgraph.json': '{}',
    'package.json': '{}',
    'package-lock.json': '{}',
    '.dockerignore': '# built here, installed there\nnode_modules\ndocs\n!docs/keep.md\n**/*.log\n/dist\n!.env.example\n',
    'node_modules/dep/index.js': '',
    'docs/keep.md': '',
    'docs/draft.md': '',
    'src/node_modules/vendored.js': '',
    'a/b/c.log': '',
    'dist/out.js': '',
    'src/dist/kept.js': '',
    '.env.example': 'OPENAI_API_KEY=',
  });
  const target = tempDir('agentplane-context-out-');
  stageProjectContext(dir, 'langgraph.json', target);
  assert.deepEqual(filesIn(target), [
    '.dockerignore',
    '.env.example',
    'docs/keep.md',
    'langgraph.json',
    'package-lock.json',
    'package.json',
    'src/dist/kept.js',
    'src/node_modules/vendored.js',
  ]);
  // the project's node_modules stayed behind: the image installs what the lockfile says
  assert.equal(impliedInstallCommand(dir), null);
  assert.equal(impliedInstallCommand(target), 'npm ci');
});
