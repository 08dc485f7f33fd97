// `agentplane conformance` runs the compiled suite in the npm package, and in a clone while
// dist/ is current; the TypeScript suite through tsx in a clone whose dist/ is older than its
// sources (or absent), so an edit to the suite is what runs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { conformanceSuite, conformanceSuiteFile } from '../../src/cli/conformanceSuite.ts';
import { BUILD_STAMP, buildStamp } from '../../bin/compiledSources.js';
import { ROOT, tempDir } from '../support/server.ts';

const SOURCE = 'test/conformance/remote.suite.ts';
const COMPILED = 'dist/test/conformance/remote.suite.js';

/** A package root holding the given files (each with a line of text). */
function tree(files: string[]): string {
  const root = tempDir('agentplane-conformance-suite-');
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), '//\n');
  }
  return root;
}

describe('the conformance suite the command runs', () => {
  it('is the compiled one in the npm package, which has no TypeScript suite', () => {
    const root = tree([COMPILED]);
    assert.equal(
      conformanceSuiteFile(root, () => assert.fail('no sources to compare with')),
      path.join(root, COMPILED),
    );
  });

  it('is the compiled one in a clone whose dist/ is current, the TypeScript one otherwise', () => {
    const root = tree([SOURCE, COMPILED]);
    assert.equal(
      conformanceSuiteFile(root, () => true),
      path.join(root, COMPILED),
    );
    assert.equal(
      conformanceSuiteFile(root, () => false),
      path.join(root, SOURCE),
    );
  });

  it("decides as the CLI's entry point does: a source saved after the build sends it to the TypeScript suite", async () => {
    const root = tree([SOURCE, COMPILED, 'src/main.ts', 'tsconfig.json']);
    fs.cpSync(path.join(ROOT, 'bin'), path.join(root, 'bin'), { recursive: true });
    const past = new Date(Date.now() - 60_000);
    for (const file of [SOURCE, 'src/main.ts', 'tsconfig.json']) fs.utimesSync(path.join(root, file), past, past);
    fs.writeFileSync(path.join(root, 'dist', BUILD_STAMP), JSON.stringify(buildStamp(root, Date.now() - 10_000)));
    assert.equal(await conformanceSuite(root), path.join(root, COMPILED));
    fs.writeFileSync(path.join(root, 'src/main.ts'), 'export {};\n');
    assert.equal(await conformanceSuite(root), path.join(root, SOURCE));
  });
});
