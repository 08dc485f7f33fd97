// Tests sit where the code they test sits (issue 66): `test/<p>.test.ts` tests `src/<p>.ts`,
// a module, or the area `src/<p>/`, a folder. A second file for one module is named for what it
// checks after a dot (`test/adapters/run-storage/inMemoryRunEventLog.retention.test.ts`), an end-to-end one keeps
// its `.e2e` (`test/handlers/a2a/rest.e2e.test.ts`): everything from the name's first dot on
// is left out when the path is compared. So whoever changes `src/shared/projectModule.ts` finds
// its tests at `test/shared/projectModule*.test.ts`, and whoever reads a test knows what it is of.
//
// The share of test files that mirror may only go up: FLOOR is the share reached so far, and
// the goal is 80%. The files that do not mirror yet are printed with the reason they stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The share of test files that mirrored when this was last raised; raise it as files move. */
const FLOOR = 0.905;
const GOAL = 0.8;

/** Every `*.test.ts` under test/, relative to the repository (fixtures hold projects, not tests). */
function testFiles(dir = 'test'): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : testFiles(p);
    return p.endsWith('.test.ts') ? [p] : [];
  });
}

/** The source a test file mirrors (`src/<p>.ts` or the folder `src/<p>`), or undefined. */
function mirrored(file: string): string | undefined {
  const dir = path.posix.dirname(file).slice('test'.length);
  const name = path.posix.basename(file).split('.')[0];
  const p = `src${dir}/${name}`;
  if (fs.existsSync(path.join(ROOT, `${p}.ts`))) return `${p}.ts`;
  if (fs.existsSync(path.join(ROOT, p)) && fs.statSync(path.join(ROOT, p)).isDirectory()) return `${p}/`;
  return undefined;
}

test('the rule reads a path as the module or area it tests', () => {
  assert.equal(mirrored('test/shared/projectModule.test.ts'), 'src/shared/projectModule.ts');
  assert.equal(mirrored('test/shared/projectModule.layouts.test.ts'), 'src/shared/projectModule.ts');
  assert.equal(mirrored('test/runtime/transports/sse.e2e.test.ts'), 'src/runtime/transports/sse.ts');
  assert.equal(mirrored('test/handlers/a2a.test.ts'), 'src/handlers/a2a/');
  // a name that is no module, a folder that is no area
  assert.equal(mirrored('test/shared/projectModules.test.ts'), undefined);
  assert.equal(mirrored('test/unit/runStream.test.ts'), undefined);
});

test(`at least ${(FLOOR * 100).toFixed(1)}% of the test files mirror the module they test (the goal is ${GOAL * 100}%)`, () => {
  const files = testFiles();
  assert.ok(files.length > 100, `only ${files.length} test files found: the walk is wrong`);
  const astray = files.filter((f) => mirrored(f) === undefined).sort();
  const share = (files.length - astray.length) / files.length;
  console.log(
    `${files.length - astray.length} of ${files.length} test files mirror src/ (${(share * 100).toFixed(1)}%); these do not:\n  ${astray.join('\n  ')}`,
  );
  assert.ok(
    share >= FLOOR,
    `${(share * 100).toFixed(1)}% of the test files mirror src/, below the ${(FLOOR * 100).toFixed(1)}% reached before: put a new test beside the module it tests`,
  );
});

// The separate suites are picked by their files' suffix (scripts/run-tests.ts), not their
// folder: a test put in a suite's old folder without the suffix would run in `npm test`
// (a container test on a machine without podman, a fault test of minutes).
test("a test file in a suite's folder carries that suite's suffix", () => {
  const suites = ['release', 'containers', 'faults', 'conformance', 'differential'];
  const astray = testFiles().filter((f) => {
    const suite = suites.find((s) => f.startsWith(`test/${s}/`));
    return suite !== undefined && !f.endsWith(`.${suite}.test.ts`);
  });
  assert.deepEqual(astray, [], `name these *.<suite>.test.ts, or move them beside what they test: ${astray.join(', ')}`);
});
