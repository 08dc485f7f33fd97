// Folders that live as long as the process: what a server without a data directory keeps on
// disk (its deployments, its listeners' logs, a local cluster's files) is gone with it, as the
// documentation says, however the process ends short of a kill -9. Test processes that started
// such servers by the hundred once left them all in /tmp.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made = new Set<string>();

/** A fresh folder under the system's temporary folder, removed when this process exits. */
export function processTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  removeAtExit(dir);
  return dir;
}

/** Removes `dir` (if it is still there) when this process exits. */
export function removeAtExit(dir: string): void {
  if (made.size === 0) process.once('exit', removeAll);
  made.add(dir);
}

function removeAll(): void {
  for (const dir of made) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // a child process writes there still: the folder is left, as a kill -9 would leave it
    }
  }
  made.clear();
}
