// A bench refuses a tree whose dist/ is older than its sources (its bin/agentplane.js would run
// them through tsx, and the figures would be the loader's), by the tree's own check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { refuseStaleBuild } from '../../scripts/bench/builtTree.ts';

/** A tree whose bin/compiledSources.js answers `current`, or none when `current` is undefined. */
function tree(current?: boolean): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'built-tree-'));
  if (current !== undefined) {
    fs.mkdirSync(path.join(root, 'bin'));
    fs.writeFileSync(path.join(root, 'bin', 'compiledSources.js'), `export const compiledIsCurrent = () => ${current};\n`);
  }
  return root;
}

test('a tree whose dist/ is stale is refused, and the message says what to run', async () => {
  const root = tree(false);
  try {
    await assert.rejects(refuseStaleBuild(root, {}), /npm run build/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a current tree, a tree with no check of its own, and BENCH_SOURCES=1 pass', async () => {
  const roots = [tree(true), tree(undefined), tree(false)];
  try {
    await refuseStaleBuild(roots[0]!, {});
    await refuseStaleBuild(roots[1]!, {});
    await refuseStaleBuild(roots[2]!, { BENCH_SOURCES: '1' });
  } finally {
    for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
  }
});
