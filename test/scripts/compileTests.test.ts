// The tests run compiled (scripts/compileTests.ts): a compiled test module must run under
// plain node, without tsx, and see what its source would (its own location, the repository's
// root, src/ modules and tsconfig's path alias), while src/ runs as the compiled build does.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { COMPILED_TESTS, compileTests, jsonOfTsconfig } from '../../scripts/compileTests.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = path.join(ROOT, '.cache', `compile-tests-${randomUUID()}`);
// named for this process, so that a run beside it (removeLeftCompilations) leaves it alone
const out = path.join(COMPILED_TESTS, String(process.pid));
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
});

test('a compiled test module runs under plain node and sees its source’s location, src/ compiled, the path alias', async () => {
  fs.mkdirSync(dir, { recursive: true });
  const source = path.join(dir, 'probe.test.ts');
  fs.writeFileSync(path.join(dir, 'helper.ts'), `export const where: string = import.meta.url;\n`);
  fs.writeFileSync(
    source,
    [
      `import { PACKAGE_ROOT } from '../../src/runtime/packageRoot.ts';`,
      `import * as auth from 'agentplane-server/auth';`,
      `import { where } from './helper.ts';`,
      `console.log(JSON.stringify({ self: import.meta.url, dirname: import.meta.dirname, helper: where, root: PACKAGE_ROOT, auth: Object.keys(auth).length > 0 }));`,
    ].join('\n'),
  );
  const [compiled] = await compileTests([source], out);
  assert.equal(compiled, path.join(out, path.relative(ROOT, dir), 'probe.test.js'));
  const run = spawnSync(process.execPath, [compiled], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(run.status, 0, run.stderr);
  const seen = JSON.parse(run.stdout) as Record<string, unknown>;
  assert.equal(seen.self, pathToFileURL(source).href);
  assert.equal(seen.dirname, dir);
  assert.equal(seen.helper, pathToFileURL(path.join(dir, 'helper.ts')).href);
  assert.equal(seen.root, ROOT.replace(/[\\/]$/, ''));
  assert.equal(seen.auth, true);
  assert.ok(fs.existsSync(path.join(out, 'src', 'runtime', 'packageRoot.js')), 'src/ compiled beside it');
  assert.ok(fs.existsSync(path.join(out, 'src', 'adapters', 'run-workers', 'runWorker.js')), 'the run worker entry compiled, though nothing imports it');
});

test('tests that reach nothing of src/ compile neither src/ nor what goes with it (the runner’s own tests run it over tiny files a dozen times)', async () => {
  const alone = path.join(dir, 'alone');
  fs.mkdirSync(alone, { recursive: true });
  const source = path.join(alone, 'plain.test.ts');
  fs.writeFileSync(path.join(alone, 'helper.ts'), `export const one: number = 1;\n`);
  fs.writeFileSync(source, `import { one } from './helper.ts';\nconsole.log(one);\n`);
  const graph = path.join(ROOT, 'examples/graphs/echo.ts');
  const separate = `${out}-alone`;
  after(() => fs.rmSync(separate, { recursive: true, force: true }));
  const [compiled] = await compileTests([source], separate, { withSources: [graph] });
  assert.equal(spawnSync(process.execPath, [compiled!], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }).stdout.trim(), '1');
  assert.ok(fs.existsSync(path.join(separate, path.relative(ROOT, alone), 'helper.js')), 'what it imports compiled');
  assert.ok(!fs.existsSync(path.join(separate, 'src')), 'no src/');
  assert.ok(!fs.existsSync(path.join(separate, 'examples')), 'nor the graphs compiled with it');
  // reaching src/, the graphs come with it
  const reaching = path.join(alone, 'reaching.test.ts');
  fs.writeFileSync(reaching, `import { PACKAGE_ROOT } from '../../../src/runtime/packageRoot.ts';\nconsole.log(PACKAGE_ROOT);\n`);
  const [withSrc] = await compileTests([reaching], separate, { withSources: [graph] });
  assert.ok(withSrc && fs.existsSync(path.join(separate, 'examples/graphs/echo.js')), 'the graphs compiled with src/');
  assert.ok(fs.existsSync(path.join(separate, 'src/adapters/run-workers/runWorker.js')));
});

test('tsconfig.json is read without TypeScript: comments and trailing commas out, strings as written', () => {
  const text = `{ "a": "http://x/*not a comment*/", // a comment\n "b": [1, 2,], /* another */ "c": "q\\"//", }`;
  assert.deepEqual(jsonOfTsconfig(text), { a: 'http://x/*not a comment*/', b: [1, 2], c: 'q"//' });
  // a trailing comma with a comment after it
  assert.deepEqual(jsonOfTsconfig(`{ "a": [1, // last\n], "b": 2, /* end */\n}`), { a: [1], b: 2 });
  const config = jsonOfTsconfig(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: { paths: Record<string, string[]> } };
  assert.deepEqual(config.compilerOptions.paths['agentplane-server/auth'], ['./src/sdk/auth.ts']);
});
