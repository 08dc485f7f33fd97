// serve's compile of the project is kept (projectCompileCache.ts): a start of an unchanged project
// takes the copies an earlier start made, without esbuild (issue 86: its service's spawn and the
// builds were ~230 ms of the main thread's start). The rule: a hit only when every input reads as
// it did (a file's content: written again unchanged still hits), a miss on any change (a module's
// text, a file added where an import was resolved), on a copy gone, on a record that does not read
// back whole, and on one that would place a copy outside its set's folder.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { compileProject, keptCompile } from '../../src/shared/projectCompile.ts';
import { identity } from '../../src/shared/projectCompileCache.ts';
import { ROOT } from '../support/server.ts';

// inside the repository: the copies go under its node_modules/.cache, as a served project's do
const dir = path.join(ROOT, '.cache', `project-compile-cache-${randomUUID()}`);
const records = path.join(fs.realpathSync(path.join(ROOT, 'node_modules')), '.cache', 'agentplane', 'projects');
const madeSets = new Set<string>();
after(() => {
  for (const set of madeSets) fs.rmSync(set, { recursive: true, force: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

async function compiled(entry: string): Promise<Map<string, string>> {
  const result = await compileProject([entry]);
  assert.ok('modules' in result, JSON.stringify(result));
  for (const url of result.modules.values()) madeSets.add(/^(.*\/\.cache\/agentplane\/modules\/[0-9a-f]{16})\//.exec(fileURLToPath(url))![1]);
  return result.modules;
}

/** The record kept for `entry`'s compile, and its file. */
function recordOf(entry: string): { file: string; record: { hash: string; modules: string[]; inputs: [string, string][] } } {
  for (const name of fs.readdirSync(records)) {
    const file = path.join(records, name);
    try {
      const record = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (JSON.stringify(record.entries) === JSON.stringify([entry])) return { file, record };
    } catch {
      // another test's record being written
    }
  }
  throw new Error(`no record for ${entry}`);
}

/** Waits for the record the compile writes in the background. */
async function recorded(entry: string): Promise<void> {
  const until = Date.now() + 10_000;
  while (!keptCompile([entry])) {
    assert.ok(Date.now() < until, 'the compile was not kept');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the project compiled once is kept for the next start', () => {
  const entry = path.join(dir, 'graph.ts');
  write({
    'package.json': JSON.stringify({ name: 'kept-project', private: true, type: 'module' }),
    'graph.ts': "import { value } from './lib.ts';\nimport { other } from './parts';\nexport const graph = (): number => value + other;\n",
    'lib.ts': 'export const value: number = 1;\n',
    'parts/index.ts': 'export const other: number = 10;\n',
    // a module of another node_modules root (the hostile record's)
    'elsewhere/node_modules/.keep': '',
    'elsewhere/evil.ts': 'export const evil = 1;\n',
  });

  it('an unchanged project is a hit with the same copies; its files written again unchanged still hit', async () => {
    const first = await compiled(entry);
    await recorded(entry);
    const kept = keptCompile([entry])!;
    assert.deepEqual(new Map([...kept.places].map(([file, place]) => [file, place])), new Map([...first].map(([file, url]) => [file, fileURLToPath(url)])));
    assert.deepEqual(await compiled(entry), first);
    write({ 'lib.ts': 'export const value: number = 1;\n' });
    assert.ok(keptCompile([entry]), 'same content, a new mtime: still a hit');
  });

  it('a changed module, a file added where an import resolved, a copy removed: each a miss, then compiled afresh', async () => {
    write({ 'lib.ts': 'export const value: number = 2;\n' });
    assert.equal(keptCompile([entry]), undefined, 'a module changed');
    const changed = await compiled(entry);
    assert.equal((await import(changed.get(entry)!)).graph(), 12);
    await recorded(entry);

    // `./parts` resolved to parts/index.ts; a parts.ts beside it is what resolves now
    write({ 'parts.ts': 'export const other: number = 20;\n' });
    assert.equal(keptCompile([entry]), undefined, 'a file added where an import was resolved');
    const added = await compiled(entry);
    assert.equal((await import(added.get(entry)!)).graph(), 22);
    await recorded(entry);

    fs.rmSync(fileURLToPath(added.get(path.join(dir, 'lib.ts'))!));
    assert.equal(keptCompile([entry]), undefined, 'a copy removed (its set pruned)');
  });

  it('a record that does not read back whole is a miss; the compile replaces it', async () => {
    await compiled(entry);
    await recorded(entry);
    const { file } = recordOf(entry);
    fs.writeFileSync(file, '{"format":1,"entries":[');
    assert.equal(keptCompile([entry]), undefined);
    await compiled(entry);
    await recorded(entry);
  });

  it('a record cannot place a copy outside its set, nor name a set that is not a hash', async () => {
    await compiled(entry);
    await recorded(entry);
    const { file, record } = recordOf(entry);
    // a module of another node_modules root: its copy's place lies outside this set's folder
    const evil = path.join(dir, 'elsewhere', 'evil.ts');
    const evilCopy = path.join(dir, 'elsewhere', 'node_modules', '.cache', 'agentplane', 'modules', record.hash, 'evil.ts.mjs');
    fs.mkdirSync(path.dirname(evilCopy), { recursive: true });
    fs.writeFileSync(evilCopy, 'export const evil = 2;\n');
    const hostile = { ...record, format: 1, entries: [entry], modules: [...record.modules, evil], inputs: [...record.inputs, [evil, identity(evil)]] };
    fs.writeFileSync(file, JSON.stringify(hostile));
    assert.equal(keptCompile([entry]), undefined, 'a copy outside the set');

    fs.writeFileSync(file, JSON.stringify({ ...record, format: 1, entries: [entry], hash: '../../../../tmp' }));
    assert.equal(keptCompile([entry]), undefined, 'a set that is not a hash');

    fs.writeFileSync(file, JSON.stringify({ ...record, format: 1, entries: [entry] }));
    assert.ok(keptCompile([entry]), 'the record as written is a hit');
  });
  it('a tsconfig added above the modules, or a change to the one it extends, is a miss', async () => {
    await compiled(entry);
    await recorded(entry);
    // none was found at first: one added in the project's folder is what esbuild would read now
    write({ 'tsconfig.json': JSON.stringify({ extends: './base/tsconfig.base', compilerOptions: { strict: true } }) });
    assert.equal(keptCompile([entry]), undefined, 'a tsconfig added where none was');
    write({ 'base/tsconfig.base.json': '{ "compilerOptions": { "target": "es2022" } }\n' });
    await compiled(entry);
    await recorded(entry);
    assert.ok(keptCompile([entry]), 'unchanged since: a hit');
    write({ 'base/tsconfig.base.json': '{ "compilerOptions": { "target": "es2020" } }\n' });
    assert.equal(keptCompile([entry]), undefined, 'the extended config changed');
    fs.rmSync(path.join(dir, 'tsconfig.json'));
    fs.rmSync(path.join(dir, 'base'), { recursive: true });
  });
});
