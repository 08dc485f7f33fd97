// The folder agentplane is installed in (package.json, spec/, dist/ui/). Found by walking up
// from this file because its depth differs: src/runtime/ when the sources run through tsx
// (a clone), dist/src/runtime/ when the compiled build runs (the npm package).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

/** A path inside the installed package. */
export const packagePath = (...segments: string[]): string => path.join(PACKAGE_ROOT, ...segments);

const manifest = JSON.parse(fs.readFileSync(packagePath('package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
export const PACKAGE_VERSION = manifest.version;
/** The exact versions agentplane ships with and is tested against, by package name. */
export const PACKAGE_DEPENDENCIES: Readonly<Record<string, string>> = manifest.dependencies;
/** How a person runs the installed command, for messages that say what to type next. */
export const PACKAGE_COMMAND = `npx ${Object.keys(manifest.bin)[0]}`;
