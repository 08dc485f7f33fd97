// The test runner (scripts/run-tests.ts) runs each test file in a process of its own or, npm
// test's, several files of a folder in one (each file's hooks and settings its own), and every
// test a file registers is reported: tests registered after a top-level await once vanished
// without a failure when the tests before them had already finished, and under
// --test-force-exit a process's last reports were cut off as it exited (a file of 230 tests
// reported 219-227 in a third of its runs, nothing failed).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  ALONE_FILES,
  APART_FOLDERS,
  LOADS_TYPESCRIPT,
  TEST_SECONDS,
  expectedSeconds,
  longestFirst,
  packFolders,
  typeScriptLast,
} from '../../scripts/testOrder.ts';
import { ROOT, runRunner } from './runnerRun.ts';

const dir = path.join(ROOT, '.cache', `run-tests-${randomUUID()}`);
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const later = (ms: number) => `await new Promise((resolve) => setTimeout(resolve, ${ms}));`;
/** Three files of one folder: one quick test; a test only after a top-level wait; a test before and one after it. Each notes its process in `pids`. */
function writeFiles(folder: string, pids: string): void {
  fs.mkdirSync(folder, { recursive: true });
  const header = `import fs from 'node:fs'; import { test } from 'node:test'; fs.appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n');`;
  fs.writeFileSync(path.join(folder, 'a.test.ts'), [header, `test('a: at once', () => {});`].join('\n'));
  fs.writeFileSync(path.join(folder, 'b.test.ts'), [header, later(400), `test('b: after a wait', () => {});`].join('\n'));
  fs.writeFileSync(
    path.join(folder, 'c.test.ts'),
    [
      header,
      // whether node:test tracks promises here (test/support/harnessHook.mjs: it does not)
      `import { executionAsyncResource } from 'node:async_hooks';`,
      `test('c: before the wait', async () => { await null; fs.appendFileSync(${JSON.stringify(pids + '.promises')}, String(executionAsyncResource() instanceof Promise) + '\\n'); });`,
      later(400),
      `test('c: after the wait', () => {});`,
    ].join('\n'),
  );
}
const THREE_TESTS = ['a: at once', 'b: after a wait', 'c: before the wait', 'c: after the wait'];

/** Runs the runner over `folder` (or several) with `flags`; its summary counts. */
const run = (env: Record<string, string>, flags: string[], folder: string | string[], mustPass = true) => runRunner(env, flags, folder, mustPass);

/** The tests (`✔ name`) of `names` that the run's output reports passed. */
const passed = (output: string, names: string[]) => names.filter((name) => output.includes(`✔ ${name} (`));

/**
 * One run of the runner (~2 CPU-s each, its own start and compile) serves the tests whose
 * folders all pass with the same settings: the three files, the file of hundreds of tests and
 * the file whose handle holds its process (its grace shortened for the whole run). Each test
 * below asserts its own folder's part; the run's own summary must count them all.
 */
const folders = { three: path.join(dir, 'three'), many: path.join(dir, 'many'), open: path.join(dir, 'open') };
let passingRun: ReturnType<typeof run> | undefined;
function sharedPassingRun(): ReturnType<typeof run> {
  passingRun ??= (async () => {
    writeFiles(folders.three, path.join(dir, 'pids.log'));
    writeMany(folders.many);
    writeHeld(folders.open);
    // a grace of 1 ms: a process held past it ends, but not before its results are written (the
    // many files' 1,000 reports were cut off at 614-855 in 3 of 4 runs when it ended at once)
    return run({ TEST_LEFT_OPEN_GRACE_MS: '1' }, [], Object.values(folders));
  })();
  return passingRun;
}

/**
 * One run of the runner serves the tests whose folders fail it, each its own way: two files
 * sharing a process, one of them failing; a file whose tests were lost; a file that leaves what
 * it made in its TMPDIR (the run's TMPDIR a folder of this file's, which it must leave empty).
 * Each test below asserts its own folder's part.
 */
const failingFolders = {
  shared: path.join(dir, 'shared'),
  sharedSeen: path.join(dir, 'shared-seen.log'),
  lost: path.join(dir, 'lost'),
  leaks: path.join(dir, 'leaks'),
  tidySeen: path.join(dir, 'tmpdir-of-tidy'),
  realTmp: path.join(dir, 'tmp'),
};
let failingRun: Promise<Awaited<ReturnType<typeof run>> & { started: number }> | undefined;
function sharedFailingRun(): NonNullable<typeof failingRun> {
  failingRun ??= (async () => {
    const { shared, sharedSeen, lost, leaks, tidySeen, realTmp } = failingFolders;
    writeShared(shared, sharedSeen);
    writeLost(lost);
    writeLeaks(leaks, tidySeen);
    fs.mkdirSync(realTmp, { recursive: true });
    const started = Date.now();
    return { ...(await run({ TMPDIR: realTmp }, [], [shared, lost, leaks], false)), started };
  })();
  return failingRun;
}

test('every test of a folder runs, the tests registered after a top-level await too, its files sharing a process, or a process each with TEST_GROUP_SIZE=1', async () => {
  const { tests, pass, output } = await sharedPassingRun();
  // the three files' 4, the many files' 1,000 and the held file's 1
  assert.equal(tests, 1005, output.slice(-2000));
  assert.equal(pass, 1005, output.slice(-2000));
  assert.deepEqual(passed(output, THREE_TESTS), THREE_TESTS, output.slice(-2000));
  const shared = fs.readFileSync(path.join(dir, 'pids.log'), 'utf8').trim().split('\n');
  assert.equal(new Set(shared).size, 1, `three files, 1 process: ${shared.join(', ')}`);
  // the runner's test processes do not track promises (test/support/harnessHook.mjs), yet the
  // tests above nest in their files' suites as before
  assert.equal(fs.readFileSync(path.join(dir, 'pids.log.promises'), 'utf8'), 'false\n');
  // a process each: the three files alone
  const apart = path.join(dir, 'apart');
  writeFiles(apart, path.join(dir, 'pids-apart.log'));
  const alone = await run({ TEST_GROUP_SIZE: '1' }, [], apart);
  assert.equal(alone.tests, 4, alone.output);
  assert.equal(alone.pass, 4, alone.output);
  const pids = fs.readFileSync(path.join(dir, 'pids-apart.log'), 'utf8').trim().split('\n');
  assert.equal(new Set(pids).size, 3, `three files, 3 processes: ${pids.join(', ')}`);
});

/** Two files sharing a process (a failing test in the second) and a support module both import; each notes what it sees in `seen`. */
function writeShared(folder: string, seen: string): void {
  fs.mkdirSync(folder, { recursive: true });
  const header = `import fs from 'node:fs'; import os from 'node:os'; import assert from 'node:assert/strict'; import { after, beforeEach, mock, test } from 'node:test'; import { made } from './support.ts';`;
  const note = (what: string) => `fs.appendFileSync(${JSON.stringify(seen)}, ${what} + '\\n');`;
  // a module both files import, loaded once in their process, that cleans up what each file made
  // (test/support/bothStores.ts' stores: a top-level after closed the first file's only)
  const fileEnd = path.relative(folder, path.join(ROOT, 'test/support/fileEnd.ts')).split(path.sep).join('/');
  fs.writeFileSync(
    path.join(folder, 'support.ts'),
    [
      `import fs from 'node:fs';`,
      `import { afterEachFile } from ${JSON.stringify(fileEnd)};`,
      `export const made: string[] = [];`,
      `afterEachFile(() => { ${note("'closed ' + made.splice(0).join(' ')")} });`,
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(folder, 'a.test.ts'),
    [
      header,
      `process.env.SHARED_BY_A = 'a';`,
      `mock.method(os, 'hostname', () => 'mocked by a');`,
      `beforeEach(() => { ${note("'a beforeEach'")} });`,
      `after(() => { ${note("'a after'")} });`,
      note(`'a tmp ' + os.tmpdir()`),
      `test('a: one', () => { made.push('a'); });`,
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(folder, 'b.test.ts'),
    [
      header,
      note(`'b tmp ' + os.tmpdir()`),
      `test('b: sees none of a', () => {`,
      `  made.push('b');`,
      `  ${note("'b test'")}`,
      `  assert.equal(process.env.SHARED_BY_A, undefined);`,
      `  assert.notEqual(os.hostname(), 'mocked by a');`,
      `});`,
      `test('b: fails', () => {`,
      `  throw new Error('b fails');`,
      `});`,
    ].join('\n'),
  );
  fs.rmSync(seen, { force: true });
}

test("files sharing a process: each file's root hooks, environment, mocks and TMPDIR stay its own, a support module's clean-up runs after each, and a failure names its file and line", async () => {
  const { status, pass, output } = await sharedFailingRun();
  assert.equal(status, 1, output);
  assert.deepEqual(passed(output, ['a: one', 'b: sees none of a']), ['a: one', 'b: sees none of a'], output);
  // these two, the lost folder's kept test and the leaking folder's two: no other
  assert.equal(pass, 5, output);
  const seen = failingFolders.sharedSeen;
  const lines = fs.readFileSync(seen, 'utf8').trim().split('\n');
  // a's hooks ran around a's test only, and its after hook before b loaded; the support
  // module's clean-up after each file's own hooks
  assert.deepEqual(
    lines.map((line) => line.replace(/ tmp .*/, ' tmp')),
    ['a tmp', 'a beforeEach', 'a after', 'closed a', 'b tmp', 'b test', 'closed b'],
  );
  const tmps = lines.filter((line) => line.includes(' tmp ')).map((line) => line.split(' tmp ')[1]);
  assert.notEqual(tmps[0], tmps[1], 'each file its own TMPDIR');
  assert.match(output, /test at [^\n]*shared[\\/]b\.test\.[jt]s:\d+:\d+\n✖ b: fails/);
});

/** A file that declares a test and registers none (a lost file, to the runner) beside one that runs its test. */
function writeLost(lost: string): void {
  fs.mkdirSync(lost, { recursive: true });
  fs.writeFileSync(path.join(lost, 'kept.test.ts'), [`import { test } from 'node:test';`, `test('kept', () => {});`].join('\n'));
  // what a lost file looks like to the runner: tests written, none reported
  fs.writeFileSync(path.join(lost, 'gone.test.ts'), [`import { test } from 'node:test';`, `if (process.env.NEVER) test('gone', () => {});`].join('\n'));
}

test('a file that declares tests and reports no result fails the run, named: its tests were lost, not passed', async () => {
  const { status, output, started } = await sharedFailingRun();
  // kept's test (the two files share a process: the lost one's is an empty suite, no test)
  assert.deepEqual(passed(output, ['kept']), ['kept'], output);
  assert.notEqual(status, 0, output);
  // a process gated on a file that registers no test once spun at full CPU for minutes (281 s here)
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
  assert.match(output, /1 test file\(s\) reported no result[^]*lost[\\/]gone\.test\.ts/);
  // named in the list of lost files: not kept (its suite's header names it too)
  assert.doesNotMatch(output.slice(output.indexOf('reported no result')), /kept\.test\.ts/);
});

/** Three files of three suites, each noting in `started` when it starts: npm test's, an end-to-end file, a release file. */
function writeOrder(folder: string, started: string): void {
  fs.mkdirSync(folder, { recursive: true });
  const files = { a: 'a.test.ts', b: 'b.e2e.test.ts', c: 'c.release.test.ts' };
  for (const [name, file] of Object.entries(files))
    fs.writeFileSync(
      path.join(folder, file),
      [
        `import fs from 'node:fs';`,
        `import { test } from 'node:test';`,
        `fs.appendFileSync(${JSON.stringify(started)}, '${name}\\n');`,
        `test('${name}', () => {});`,
      ].join('\n'),
    );
}

test('the release files start first, then the end-to-end files, npm test’s last, whatever their names (node orders the files it is given by name)', async () => {
  const { output } = await sharedE2eRun();
  assert.deepEqual(passed(output, ['a', 'b', 'c']), ['a', 'b', 'c'], output);
  assert.deepEqual(fs.readFileSync(e2eFolders.started, 'utf8').trim().split('\n'), ['c', 'b', 'a']);
});

const LEAK_HEADER = `import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path'; import { after, test } from 'node:test';`;
const LEAK = `const made = fs.mkdtempSync(path.join(os.tmpdir(), 'agentplane-test-'));`;
const e2eFolders = {
  probe: path.join(dir, 'e2e'),
  leaks: path.join(dir, 'leaks-e2e'),
  order: path.join(dir, 'order'),
  started: path.join(dir, 'order-started.log'),
};
/**
 * One run of npm test's, the end-to-end and the release suites, on one slot (each file starts
 * when the one before has ended), serves three tests: the probe's (compiled), an end-to-end file
 * that leaks a folder (reported, the run passing) and the order the three suites' files start in.
 */
let e2eRun: ReturnType<typeof run> | undefined;
function sharedE2eRun(): ReturnType<typeof run> {
  e2eRun ??= (async () => {
    fs.mkdirSync(e2eFolders.probe, { recursive: true });
    fs.writeFileSync(path.join(e2eFolders.probe, 'probe.e2e.test.ts'), [`import { test } from 'node:test';`, `test('e2e: probe', () => {});`].join('\n'));
    fs.mkdirSync(e2eFolders.leaks, { recursive: true });
    fs.writeFileSync(path.join(e2eFolders.leaks, 'leaky.e2e.test.ts'), [LEAK_HEADER, LEAK, `test('leaks a folder', () => {});`].join('\n'));
    writeOrder(e2eFolders.order, e2eFolders.started);
    const realTmp = path.join(dir, 'tmp-e2e');
    fs.mkdirSync(realTmp, { recursive: true });
    return run({ TMPDIR: realTmp, TEST_CONCURRENCY: '1' }, ['--default', '--e2e', '--release'], [e2eFolders.probe, e2eFolders.leaks, e2eFolders.order]);
  })();
  return e2eRun;
}

test('the end-to-end suite runs compiled, as npm test does, not through tsx', async () => {
  const { tests, pass, output } = await sharedE2eRun();
  // the probe, the leaking file's test and the three suites' files
  assert.equal(tests, 5, output);
  assert.equal(pass, 5, output);
  assert.deepEqual(passed(output, ['e2e: probe', 'leaks a folder']), ['e2e: probe', 'leaks a folder'], output);
  assert.match(output, /compiled the tests in/);
});

/** Four files of 250 tests each (in describes of 25). */
function writeMany(folder: string): void {
  fs.mkdirSync(folder, { recursive: true });
  for (const name of ['a', 'b', 'c', 'd'])
    fs.writeFileSync(
      path.join(folder, `${name}.test.ts`),
      [
        `import { describe, it } from 'node:test';`,
        `for (let d = 0; d < 10; d++) describe('${name} ' + d, () => { for (let t = 0; t < 25; t++) it('${name} ' + d + '.' + t, () => {}); });`,
      ].join('\n'),
    );
}
const MANY_TESTS = ['a', 'b', 'c', 'd'].flatMap((name) => Array.from({ length: 250 }, (_, i) => `${name} ${Math.floor(i / 25)}.${i % 25}`));

test('a file of hundreds of tests reports every one of them, in each of its processes', async () => {
  // under --test-force-exit a process lost its last reports about every other run
  const { output } = await sharedPassingRun();
  assert.equal(passed(output, MANY_TESTS).length, 1000, output.slice(-2000));
});

/** A file whose test leaves a timer running, and whose after hook outlasts the grace before it writes `cleaned`. */
function writeHeld(folder: string): void {
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(
    path.join(folder, 'held.test.ts'),
    [
      `import fs from 'node:fs';`,
      `import { after, test } from 'node:test';`,
      `test('leaves a timer', () => void setInterval(() => {}, 1000));`,
      // a cleanup longer than the grace (stopping containers takes seconds) is not cut short
      `after(async () => {`,
      `  await new Promise((resolve) => setTimeout(resolve, 1500));`,
      `  fs.writeFileSync(${JSON.stringify(path.join(folder, 'cleaned'))}, 'done');`,
      `});`,
    ].join('\n'),
  );
}

test('a process held by a handle its tests left open ends a grace after its last test and its own after hooks, and says which file it was', async () => {
  const started = Date.now();
  const { output } = await sharedPassingRun();
  assert.deepEqual(passed(output, ['leaves a timer']), ['leaves a timer'], output.slice(-2000));
  assert.ok(fs.existsSync(path.join(folders.open, 'cleaned')), 'the file’s own after hook ran to its end');
  assert.match(output, /held\.test\.ts: a handle its tests left open held its process; ended 1 ms after its last test/);
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
});

/** A file that leaves a folder in its TMPDIR, and one that removes its own; the second notes its TMPDIR in `seen`. */
function writeLeaks(folder: string, seen: string): void {
  fs.mkdirSync(folder, { recursive: true });
  const make = LEAK;
  const header = LEAK_HEADER;
  fs.writeFileSync(path.join(folder, 'leaky.test.ts'), [header, make, `test('leaks a folder', () => {});`].join('\n'));
  fs.writeFileSync(
    path.join(folder, 'tidy.test.ts'),
    [
      header,
      make,
      `fs.writeFileSync(${JSON.stringify(seen)}, os.tmpdir());`,
      `after(() => fs.rmSync(made, { recursive: true }));`,
      `test('removes its folder', () => {});`,
    ].join('\n'),
  );
}

test('a file that leaves what it made in its temporary folder fails the run, named, and the run leaves nothing in the real one', async () => {
  const { status, output } = await sharedFailingRun();
  const { realTmp, tidySeen: seen } = failingFolders;
  assert.deepEqual(passed(output, ['leaks a folder', 'removes its folder']), ['leaks a folder', 'removes its folder'], output);
  assert.notEqual(status, 0, output);
  assert.match(output, /1 test file\(s\) left what they made in their temporary folder[^]*leaky\.test\.ts: agentplane-test-\w+/);
  assert.doesNotMatch(output, /tidy\.test\.ts: /);
  // what the runner adds to the real TMPDIR is short: a socket's path holds ~107 bytes, and a
  // server's warm-up made one 116 long in a folder named for its test file (the kernel cut it)
  const added = path.relative(realTmp, fs.readFileSync(seen, 'utf8'));
  assert.ok(!added.startsWith('..') && added.length <= 40, `${added} (${added.length} characters)`);
  assert.deepEqual(
    fs.readdirSync(realTmp).filter((name) => !name.startsWith('tsx-')),
    [],
    'the run removed its folder, the leak with it',
  );
  // a file of another suite is reported, and fails the run only with TEST_LEAKS=fail
  // (the leaking end-to-end file runs in the --e2e run the probe's test shares, which must pass)
  const reported = await sharedE2eRun();
  assert.equal(reported.status, 0, reported.output);
  assert.match(reported.output, /⚠ 1 test file\(s\) left what they made[^]*leaky\.e2e\.test\.ts: agentplane-test-/);
  assert.notEqual((await run({ TMPDIR: realTmp, TEST_LEAKS: 'fail' }, ['--e2e'], e2eFolders.leaks, false)).status, 0);
});

// npm test's groups start longest first (scripts/testOrder.ts): the runner's own tests, the
// longest file, sat last by their folder's name and the run ended on them alone.
const knownSeconds = { 'test/z/long.test.ts': 60, 'test/a/mid.test.ts': 5 };

test('within a suite the longest expected group starts first, a file not in the table counting a second, ties by name', () => {
  const groups = [['test/a/x.test.ts', 'test/a/mid.test.ts'], ['test/b/one.test.ts'], ['test/z/long.test.ts'], ['test/a/y.test.ts']];
  assert.deepEqual(
    longestFirst(groups, () => 0, knownSeconds).map((group) => group[0]),
    ['test/z/long.test.ts', 'test/a/x.test.ts', 'test/a/y.test.ts', 'test/b/one.test.ts'],
  );
  assert.equal(expectedSeconds(['test/a/x.test.ts', 'test/a/mid.test.ts'], knownSeconds), 1 + 1 + 5);
});

test("a suite's place in the start order comes before the length: a short release file still starts before npm test's longest", () => {
  const groups = [['test/z/long.test.ts'], ['test/a/short.release.test.ts']];
  const rank = (group: string[]) => (group[0]!.includes('.release.') ? 0 : 1);
  assert.deepEqual(longestFirst(groups, rank, knownSeconds), [['test/a/short.release.test.ts'], ['test/z/long.test.ts']]);
});

test('the table names files that exist, each an npm test file (a renamed file would silently lose its place)', async () => {
  const missing = Object.keys(TEST_SECONDS).filter((file) => !fs.existsSync(new URL(`../../${file}`, import.meta.url)));
  assert.deepEqual(missing, []);
});

test('a file that loads TypeScript uncompiled runs last of its folder, the others in their order; the list names files that exist', () => {
  const files = ['test/a/one.test.ts', 'test/a/ts.test.ts', 'test/a/two.test.ts', 'test/a/three.test.ts'];
  assert.deepEqual(typeScriptLast(files, new Set(['test/a/ts.test.ts'])), [
    'test/a/one.test.ts',
    'test/a/two.test.ts',
    'test/a/three.test.ts',
    'test/a/ts.test.ts',
  ]);
  // a renamed file would silently lose its place
  const missing = [...LOADS_TYPESCRIPT].filter((file) => !fs.existsSync(new URL(`../../${file}`, import.meta.url)));
  assert.deepEqual(missing, []);
});

test("small folders share a process with the next by name up to the group's size; a folder kept apart never, one that loads TypeScript ends its pack", () => {
  const one = (folder: string, ...names: string[]) => ({ folder, groups: [names.map((name) => `${folder}/${name}.test.ts`)] });
  const folders = [
    one('test/a', 'x', 'y'),
    // a folder split in two groups is left as it is, and does not end the pack around it
    {
      folder: 'test/b',
      groups: [
        ['test/b/1.test.ts', 'test/b/2.test.ts'],
        ['test/b/3.test.ts', 'test/b/4.test.ts'],
      ],
    },
    one('test/c', 'z'),
    one('test/d', 'p', 'q'),
    one('test/e', 'before', 'ts'),
    one('test/f', 'r'),
    one('test/loader', 's'),
    one('test/g', 't', 'u', 'v', 'w'),
    one('test/h', 'full1', 'full2', 'full3', 'full4', 'full5'),
  ];
  assert.deepEqual(packFolders(folders, 5, new Set(['test/e/ts.test.ts']), new Set(['test/loader'])), [
    ['test/a/x.test.ts', 'test/a/y.test.ts', 'test/c/z.test.ts', 'test/d/p.test.ts', 'test/d/q.test.ts'],
    ['test/b/1.test.ts', 'test/b/2.test.ts'],
    ['test/b/3.test.ts', 'test/b/4.test.ts'],
    // the file that loads TypeScript ends its pack: test/f does not join it; the folder kept apart runs alone
    ['test/e/before.test.ts', 'test/e/ts.test.ts'],
    ['test/f/r.test.ts', 'test/g/t.test.ts', 'test/g/u.test.ts', 'test/g/v.test.ts', 'test/g/w.test.ts'],
    ['test/loader/s.test.ts'],
    ['test/h/full1.test.ts', 'test/h/full2.test.ts', 'test/h/full3.test.ts', 'test/h/full4.test.ts', 'test/h/full5.test.ts'],
  ]);
  // a renamed folder would silently lose its rule
  assert.deepEqual(
    [...APART_FOLDERS].filter((folder) => !fs.existsSync(new URL(`../../${folder}`, import.meta.url))),
    [],
  );
  // and so would a renamed file that runs alone
  assert.deepEqual(
    [...ALONE_FILES].filter((file) => !fs.existsSync(new URL(`../../${file}`, import.meta.url))),
    [],
  );
});
