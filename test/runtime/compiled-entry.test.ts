// The CLI's entry point in a clone runs the compiled dist/ only while it was built from the
// sources as they are (bin/compiledSources.js); any source added, removed, resized or saved
// since the build began sends it back to the sources through tsx, so a stale dist/ never runs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BUILD_STAMP, buildStamp, compiledIsCurrent } from '../../bin/compiledSources.js';
import { tempDir } from '../support/server.ts';

/** A tree with sources, and a dist/ stamped by a build that began `builtAgoMs` ago. */
function builtTree(builtAgoMs = 10_000): string {
  const root = tempDir('agentplane-compiled-');
  const past = new Date(Date.now() - 60_000);
  for (const [file, text] of Object.entries({
    'src/main.ts': 'export {};\n',
    'src/domain/a.ts': 'export const a = 1;\n',
    'generated/x.gen.js': '//\n',
    'tsconfig.json': '{}',
    'scripts/bundleServer.ts': 'export {};\n',
  })) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
    fs.utimesSync(path.join(root, file), past, past);
  }
  fs.mkdirSync(path.join(root, 'dist'));
  fs.writeFileSync(path.join(root, 'dist', BUILD_STAMP), JSON.stringify(buildStamp(root, Date.now() - builtAgoMs)));
  return root;
}

describe('whether dist/ is current', () => {
  it('is current right after a build of unchanged sources', () => {
    assert.equal(compiledIsCurrent(builtTree()), true);
  });

  it('is not once a source is saved after the build began, even at the same size', () => {
    const root = builtTree();
    fs.writeFileSync(path.join(root, 'src/domain/a.ts'), 'export const a = 2;\n');
    assert.equal(compiledIsCurrent(root), false);
  });

  it('is not once the bundler of dist/bundle/ is saved after the build began (its output is what bin runs)', () => {
    const root = builtTree();
    fs.writeFileSync(path.join(root, 'scripts/bundleServer.ts'), 'export const changed = true;\n');
    assert.equal(compiledIsCurrent(root), false);
  });

  it('is not once a source is added or removed, whatever its time', () => {
    const added = builtTree();
    fs.writeFileSync(path.join(added, 'src/b.ts'), 'export {};\n');
    fs.utimesSync(path.join(added, 'src/b.ts'), new Date(0), new Date(0));
    assert.equal(compiledIsCurrent(added), false);
    const removed = builtTree();
    fs.rmSync(path.join(removed, 'generated/x.gen.js'));
    assert.equal(compiledIsCurrent(removed), false);
  });

  it('is not when a source changed size with its old time kept (a copy that preserves times)', () => {
    const root = builtTree();
    const file = path.join(root, 'src/main.ts');
    const { mtime } = fs.statSync(file);
    fs.writeFileSync(file, 'export const changed = true;\n');
    fs.utimesSync(file, mtime, mtime);
    assert.equal(compiledIsCurrent(root), false);
  });

  it('is not without a stamp (a dist/ from before stamps, or a build that did not finish)', () => {
    const root = builtTree();
    fs.rmSync(path.join(root, 'dist', BUILD_STAMP));
    assert.equal(compiledIsCurrent(root), false);
  });
});
