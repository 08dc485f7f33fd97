// tsx's compile cache is left off in the threads that compile no CommonJS (typescriptLoader.ts):
// tsx lists its cache folder in every thread that loads it (~50 ms of the main thread's CPU
// before the first reply where the folder holds 35,000 files), and in a thread whose project
// modules are all ES modules that tsx only compiles on its hooks' thread (which starts without
// the cache too: typescriptLoader.hooksCache.test.ts).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { importWithoutCompileCache, loadedByRequire } from '../../src/shared/typescriptLoader.ts';
import { tempDir } from '../support/tempDirs.ts';

describe('which project modules tsx loads by require()', () => {
  const dir = tempDir('ts-loader-');
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const project = (type: string | undefined) => {
    const at = fs.mkdtempSync(path.join(dir, 'p-'));
    fs.writeFileSync(path.join(at, 'package.json'), JSON.stringify(type ? { type } : { name: 'p' }));
    fs.mkdirSync(path.join(at, 'src'));
    return at;
  };

  it('by the extension where it decides, else by the nearest package.json', () => {
    const esm = project('module');
    const none = project(undefined);
    const cjs = project('commonjs');
    assert.equal(loadedByRequire(path.join(esm, 'src/graph.ts')), false, 'a .ts file of a "type": "module" package is an ES module');
    assert.equal(loadedByRequire(path.join(esm, 'src/graph.cts')), true, '.cts is CommonJS anywhere');
    assert.equal(loadedByRequire(path.join(none, 'src/graph.ts')), true, 'no "type": CommonJS, as `npm i @langchain/langgraph` leaves a project');
    assert.equal(loadedByRequire(path.join(none, 'src/graph.mts')), false, '.mts is an ES module anywhere');
    assert.equal(loadedByRequire(path.join(cjs, 'src/graph.tsx')), true);
  });
});

describe('tsx loaded without its compile cache', () => {
  it('sees TSX_DISABLE_CACHE while it loads, and the variable is put back after, as it was', async () => {
    delete process.env.TSX_DISABLE_CACHE;
    assert.equal(await importWithoutCompileCache(async () => process.env.TSX_DISABLE_CACHE, true), '1');
    assert.equal(process.env.TSX_DISABLE_CACHE, undefined, 'put back after');
    assert.equal(await importWithoutCompileCache(async () => process.env.TSX_DISABLE_CACHE, false), undefined, 'a CommonJS project keeps the cache');
    process.env.TSX_DISABLE_CACHE = 'yes';
    try {
      await assert.rejects(
        importWithoutCompileCache(async () => {
          throw new Error('no tsx');
        }, true),
        /no tsx/,
      );
      assert.equal(process.env.TSX_DISABLE_CACHE, 'yes', "an operator's own setting stays");
    } finally {
      delete process.env.TSX_DISABLE_CACHE;
    }
  });
});
