// The temporary folders of a test run (scripts/run-tests.ts). Each test process gets a TMPDIR of
// its own inside one folder of the run, so that whatever a test file makes through os.tmpdir()
// (its own folders, its servers' data directories, what its child processes make there) is
// found, named by the file that left it, and removed with the run: a CI run once filled the
// disk with 43 GB of folders the tests left in /tmp, and nothing said which test left them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isRunning } from './isRunning.ts';

/** The prefix of a run's folder, then the runner's pid: a later run removes those of runners gone. */
export const RUN_PREFIX = 'agentplane-tests-';
/**
 * tsx keeps its cache of compiled files in `<tmpdir>/tsx-<uid>`: in a file's own TMPDIR it is a
 * link to the machine's, so that the servers a test starts through tsx keep a warm cache, and
 * it is not something the file left.
 */
const TSX_CACHE = `tsx-${os.userInfo().uid}`;

/** Makes this run's folder under `realTmp`, after removing those of runs whose runner is gone. */
export function makeRunTempDir(realTmp: string, pid = process.pid): string {
  removeLeftRuns(realTmp);
  const dir = fs.mkdtempSync(path.join(realTmp, `${RUN_PREFIX}${pid}-`));
  openAsTmp(dir);
  linkTsxCache(dir, realTmp);
  return dir;
}

/** The folder of a run whose runner was killed (its exit never came): removed, those of live runners kept. */
export function removeLeftRuns(realTmp: string): void {
  for (const name of fs.readdirSync(realTmp)) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    const pid = Number(name.slice(RUN_PREFIX.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && isRunning(pid)) continue;
    fs.rmSync(path.join(realTmp, name), { recursive: true, force: true });
  }
}

/**
 * The TMPDIR of one test file's process, made when the process starts (the runner's entry file
 * calls it before it imports the test file). `name` is unique in the run, and short: a socket's
 * path holds ~107 bytes, and tests make sockets in folders of their own there.
 */
export function fileTempDir(runDir: string, name: string, realTmp = path.dirname(runDir)): string {
  const dir = path.join(runDir, name);
  fs.mkdirSync(dir, { recursive: true });
  openAsTmp(path.dirname(dir));
  openAsTmp(dir);
  linkTsxCache(dir, realTmp);
  return dir;
}

export interface LeftBehind {
  /** The name of the file's folder in the run's (see fileTempDir). */
  file: string;
  /** What the file's process left in its TMPDIR, by name. */
  entries: string[];
  bytes: number;
}

/** What each test file's process left in its TMPDIR, the files that left nothing omitted. */
export function leftBehind(runDir: string): LeftBehind[] {
  if (!fs.existsSync(runDir)) return [];
  return fs
    .readdirSync(runDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const dir = path.join(runDir, entry.name);
      const entries = fs.readdirSync(dir).filter((name) => name !== TSX_CACHE);
      return entries.length
        ? [{ file: entry.name, entries: entries.sort(), bytes: entries.reduce((sum, name) => sum + bytesBelow(path.join(dir, name)), 0) }]
        : [];
    });
}

/** The report of what the files left, one line each, the first few names of each. */
export function describeLeftBehind(left: LeftBehind[]): string {
  return left
    .map(({ file, entries, bytes }) => {
      const names = entries.slice(0, 5).join(', ') + (entries.length > 5 ? `, … (${entries.length} in all)` : '');
      return `  ${file}: ${names} (${(bytes / 1024 / 1024).toFixed(1)} MB)`;
    })
    .join('\n');
}

/** Bytes of the files below `at` (links not followed), 0 for what vanished meanwhile. */
function bytesBelow(at: string): number {
  try {
    const stat = fs.lstatSync(at);
    if (!stat.isDirectory()) return stat.size;
    return fs.readdirSync(at).reduce((sum, name) => sum + bytesBelow(path.join(at, name)), 0);
  } catch {
    return 0;
  }
}

/**
 * Open to every user, sticky, as /tmp is: what the tests start as other users reads and makes
 * files there (embedded PostgreSQL's initdb runs as its own user, the Dockerfile's steps as nobody).
 */
function openAsTmp(dir: string): void {
  fs.chmodSync(dir, 0o1777);
}

function linkTsxCache(dir: string, realTmp: string): void {
  const link = path.join(dir, TSX_CACHE);
  if (fs.existsSync(link)) return;
  try {
    fs.mkdirSync(path.join(realTmp, TSX_CACHE), { recursive: true, mode: 0o700 });
    fs.symlinkSync(path.join(realTmp, TSX_CACHE), link);
  } catch {
    // made meanwhile by another process of the run, or not permitted: tsx makes a cache of its own
  }
}
