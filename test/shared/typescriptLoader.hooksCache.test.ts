// The ES module hooks' thread starts without tsx's compile cache (typescriptLoader.ts,
// startHooksThreadWithoutCompileCache): the main thread waits in register() while that thread
// starts, and the cache made it wait longer (it lists its whole folder, shared by every project
// on the machine) than compiling the project's modules afresh does.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerTypescriptLoader } from '../../src/shared/typescriptLoader.ts';
import { tempDir } from '../support/tempDirs.ts';

describe("tsx's hooks thread", () => {
  const dir = tempDir('ts-hooks-cache-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('compiles an ES module project without a compile cache, and leaves TSX_DISABLE_CACHE as it was', async () => {
    const project = path.join(dir, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ type: 'module' }));
    const graph = path.join(project, 'graph.ts');
    fs.writeFileSync(graph, 'const answer: number = 42;\nexport { answer };\n');
    // tsx's cache folder is made under the temporary directory its thread sees as it starts
    const temporary = path.join(dir, 'tmp');
    fs.mkdirSync(temporary);
    const before = { TMPDIR: process.env.TMPDIR, TSX_DISABLE_CACHE: process.env.TSX_DISABLE_CACHE };
    process.env.TMPDIR = temporary;
    delete process.env.TSX_DISABLE_CACHE;
    try {
      await registerTypescriptLoader([graph]);
      assert.equal(process.env.TSX_DISABLE_CACHE, undefined, 'the variable is put back once the thread is made');
    } finally {
      if (before.TMPDIR === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before.TMPDIR;
    }
    const loaded = (await import(pathToFileURL(graph).href)) as { answer: number };
    assert.equal(loaded.answer, 42, 'the TypeScript module is compiled and loaded');
    assert.deepEqual(fs.readdirSync(temporary), [], "no compile cache folder was made by the hooks' thread");
  });
});
