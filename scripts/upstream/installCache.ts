// What keeps the caches of npm installs made on demand (.cache/upstream, .cache/langgraph-versions)
// from growing: an install is made in a staging folder renamed into place, and a project copy is
// made inside an install, each named by the pid of its process, so that what a killed process
// left is found and removed by the next; and an install no run has used for a week goes. A CI
// machine once ran out of disk with such staging folders left behind.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { isRunning } from '../isRunning.ts';
import { removeAtExit } from '../../src/shared/processTempDir.ts';

/** An install no process has used this long is removed (a pin changed, a release dropped). */
export const UNUSED_INSTALL_MS = 7 * 24 * 3600_000;

/** A fresh staging folder for `install`, removed when this process exits unless it was renamed into place. */
export function stagingFor(install: string): string {
  const staging = `${install}.staging-${process.pid}-${randomBytes(4).toString('hex')}`;
  fs.mkdirSync(staging, { recursive: true });
  removeAtExit(staging);
  return staging;
}

/** A folder named for this process inside `parent` (a project copy), removed when this process exits. */
export function ownFolderIn(parent: string, name: string): string {
  const dir = path.join(parent, `${name}-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(dir, { recursive: true });
  removeAtExit(dir);
  return dir;
}

/** Removes, in `dir`, the staging folders and copies whose process is gone (killed before it could). */
export function removeOrphans(dir: string): void {
  for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(entry)?.[1]);
    if (!pid || pid === process.pid || isRunning(pid)) continue;
    fs.rmSync(path.join(dir, entry), { recursive: true, force: true });
  }
}

/** Notes that `install` (its `marker`, written last) was used now: an install keeps while runs use it. */
export function markUsed(install: string, marker: string): void {
  const now = new Date();
  try {
    fs.utimesSync(path.join(install, marker), now, now);
  } catch {
    // removed meanwhile by another run: it is made again when next needed
  }
}

/**
 * Removes from `cache` the installs (folders with `marker`) that no run has used for
 * UNUSED_INSTALL_MS, but `keep`, and those holding a copy of a live process.
 */
export function removeUnused(cache: string, marker: string, keep: string, now = Date.now()): void {
  for (const entry of fs.existsSync(cache) ? fs.readdirSync(cache) : []) {
    const install = path.join(cache, entry);
    if (install === keep || entry.includes('.staging-')) continue;
    let used: number;
    try {
      used = fs.statSync(path.join(install, marker)).mtimeMs;
    } catch {
      continue; // not an install (or not finished: its staging folder is another's)
    }
    if (now - used < UNUSED_INSTALL_MS || holdsLiveCopy(install)) continue;
    fs.rmSync(install, { recursive: true, force: true });
  }
}

function holdsLiveCopy(install: string): boolean {
  const inside = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []);
  return [...inside(install), ...inside(path.join(install, 'projects'))].some((entry) => {
    const pid = Number(/-(\d+)-[0-9a-f]+$/.exec(entry)?.[1]);
    return pid > 0 && isRunning(pid);
  });
}
