// A start's check that the graphs load, remembered beside the compiled set (issues 86/91): read
// back only while nothing it depended on changed — the packages the compiled modules import (their
// package.json, the node_modules' lockfile), the project JSON they import, the graph entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { forgetGraphCheck, readGraphCheck, writeGraphCheck, type GraphCheckSubject } from '../../src/shared/graphCheckRecord.ts';
import { tempDir } from '../support/tempDirs.ts';

const SET = '0123456789abcdef';

/** A project with a package and a JSON file its compiled graph module imports, and the copy in its set folder. */
function project(copyImports = `import { make } from "fakepkg";\n`) {
  const dir = fs.realpathSync(tempDir());
  const write = (name: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  };
  write('node_modules/fakepkg/package.json', JSON.stringify({ name: 'fakepkg', version: '1.0.0' }));
  write('node_modules/.package-lock.json', '{"lockfileVersion":3}');
  write('data.json', '{"a":1}');
  write('graph.ts', 'export const graph = 1;\n');
  const copy = `node_modules/.cache/agentplane/modules/${SET}/graph.ts.mjs`;
  write(
    copy,
    `${copyImports}import data from ${JSON.stringify(pathToFileURL(path.join(dir, 'data.json')).href)} with { type: "json" };\nexport const graph = make(data);\n`,
  );
  const subject: GraphCheckSubject = {
    set: SET,
    modules: new Map([[path.join(dir, 'graph.ts'), pathToFileURL(path.join(dir, copy)).href]]),
    graphs: { g: './graph.ts:graph' },
    functions: 'plain',
  };
  return { dir, write, subject };
}

test('a recorded check reads back while nothing changed, and not once an imported package’s version, the lockfile or an imported JSON file did', async () => {
  const { write, subject } = project();
  assert.equal(readGraphCheck(subject), undefined, 'nothing recorded yet');
  assert.equal(await writeGraphCheck(subject, { g: 'langgraph' }), true);
  assert.deepEqual(readGraphCheck(subject), { g: 'langgraph' });

  write('node_modules/fakepkg/package.json', JSON.stringify({ name: 'fakepkg', version: '1.0.1' }));
  assert.equal(readGraphCheck(subject), undefined, 'another version of an imported package');
  write('node_modules/fakepkg/package.json', JSON.stringify({ name: 'fakepkg', version: '1.0.0' }));
  assert.deepEqual(readGraphCheck(subject), { g: 'langgraph' }, 'the same content again (a package.json is taken by its content)');

  write('node_modules/.package-lock.json', '{"lockfileVersion":3,"packages":{}}');
  assert.equal(readGraphCheck(subject), undefined, 'an install (the lockfile) may have changed what the package imports');
  await writeGraphCheck(subject, { g: 'langgraph' });
  assert.deepEqual(readGraphCheck(subject), { g: 'langgraph' });

  write('data.json', '{"a":2}');
  assert.equal(readGraphCheck(subject), undefined, 'a project JSON file a compiled module imports');
});

test('a package installed nearer the project, other graph entries, another set or a damaged record is a miss; forgetting removes it', async () => {
  const { dir, write, subject } = project();
  fs.mkdirSync(path.join(dir, 'sub'));
  const nested: GraphCheckSubject = { ...subject, modules: new Map([[path.join(dir, 'sub', 'graph.ts'), [...subject.modules.values()][0]]]) };
  await writeGraphCheck(nested, { g: 'plain' });
  assert.deepEqual(readGraphCheck(nested), { g: 'plain' });
  write('sub/node_modules/fakepkg/package.json', JSON.stringify({ name: 'fakepkg', version: '2.0.0' }));
  assert.equal(readGraphCheck(nested), undefined, 'the package now resolves to another copy');

  await writeGraphCheck(subject, { g: 'plain' });
  assert.equal(readGraphCheck({ ...subject, graphs: { g: './graph.ts:other' } }), undefined, 'another entry');
  assert.equal(readGraphCheck({ ...subject, functions: 'factory' }), undefined, 'functions read otherwise');
  assert.equal(readGraphCheck({ ...subject, set: 'fedcba9876543210' }), undefined, 'another compiled set');

  const folder = path.join(dir, 'node_modules/.cache/agentplane/modules', SET);
  const [file] = fs
    .readdirSync(folder)
    .filter((name) => name.startsWith('graph-check-') && fs.readFileSync(path.join(folder, name), 'utf8').includes('"g":"plain"'));
  const whole = fs.readFileSync(path.join(folder, file), 'utf8');
  for (const damaged of [whole.slice(0, -1), whole.replace('"plain"', '"other"'), '{}'])
    if (damaged !== whole) {
      fs.writeFileSync(path.join(folder, file), damaged);
      assert.equal(readGraphCheck(subject), undefined, damaged.slice(0, 60));
    }
  fs.writeFileSync(path.join(folder, file), whole);
  assert.deepEqual(readGraphCheck(subject), { g: 'plain' });
  forgetGraphCheck(subject);
  assert.equal(readGraphCheck(subject), undefined, 'forgotten');
});

test('a compiled module that imports project JavaScript is not recorded (what that file imports is not known)', async () => {
  const { dir, write, subject } = project(`import { make } from "fakepkg";\nimport "${pathToFileURL('/nowhere/helper.js').href}";\n`);
  write('helper.js', 'export {};\n');
  assert.equal(await writeGraphCheck(subject, { g: 'plain' }), false);
  assert.equal(readGraphCheck(subject), undefined);
  assert.ok(!fs.readdirSync(path.join(dir, 'node_modules/.cache/agentplane/modules', SET)).some((name) => name.startsWith('graph-check-')));
});
