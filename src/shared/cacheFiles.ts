// The files serve keeps for its next start (the compiled copies and their records, the graphs'
// check): each written whole or not at all, and removed once unused for long enough. A reader
// never sees a half-written file (a start killed mid-write leaves only a partial name beside it).
import fs from 'node:fs';
import path from 'node:path';

/** Writes `text` to `file` through a partial file renamed into place, its folder made first. */
export async function writeWhole(file: string, text: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  await fs.promises.writeFile(partial, text);
  await fs.promises.rename(partial, file);
}

/** Removes the files of `folder` (those `named` accepts) whose last use (mtime) is older than `keptMs`. */
export async function removeUnused(folder: string, keptMs: number, named: (name: string) => boolean = () => true): Promise<void> {
  for (const name of await fs.promises.readdir(folder)) {
    if (!named(name)) continue;
    const at = path.join(folder, name);
    const stat = await fs.promises.stat(at).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > keptMs) await fs.promises.rm(at, { force: true });
  }
}
