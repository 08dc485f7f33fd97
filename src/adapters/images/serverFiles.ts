// What of an installed agentplane goes into an image: the package's own files (package.json,
// bin/, dist/, spec/, examples/) and the packages it needs at run time — its dependencies and
// theirs, found the way Node.js finds them (the nearest node_modules up the tree), so it works
// from a clone (everything in its own node_modules, dev tools included and left out here) and
// from an npm install (dependencies hoisted beside it). Each keeps its place relative to the
// highest node_modules folder used, so the tree resolves in the image exactly as here.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const PACKAGE_ENTRIES = ['package.json', 'bin', 'dist', 'spec', 'examples', 'README.md'];

const readManifest = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;

/** The folder `name` resolves to from `dir`, as Node.js looks it up; null when it is not installed. */
function findPackage(name: string, dir: string): string | null {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(at) === at) return null;
  }
}

export interface ServerFiles {
  /** The package root and every run-time dependency folder. */
  packageRoot: string;
  dependencies: string[];
  /** The folder paths are kept relative to (the package root, or the project it is installed in). */
  base: string;
  /** A hash of everything listed: same files, same image. */
  digest: string;
}

export function serverFiles(packageRoot: string): ServerFiles {
  const found = new Set<string>();
  const visit = (dir: string) => {
    const manifest = readManifest(dir);
    const optional = new Set([
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.entries(manifest.peerDependenciesMeta ?? {})
        .filter(([, m]) => m.optional)
        .map(([n]) => n),
    ]);
    const names = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    for (const name of names) {
      const at = findPackage(name, dir);
      if (!at) {
        // an optional dependency for another platform, or an optional peer nobody installed
        if (optional.has(name)) continue;
        throw new Error(`${manifest.name} needs ${name}, which is not installed (from ${dir}); run npm install`);
      }
      const real = fs.realpathSync(at);
      if (found.has(real)) continue;
      found.add(real);
      visit(real);
    }
  };
  const root = fs.realpathSync(packageRoot);
  visit(root);
  // a package whose node_modules is a link to another folder's (a git worktree sharing a
  // checkout's install) finds its dependencies there: in the image they are where it looks
  const own = path.join(root, 'node_modules');
  const linkedTo = fs.existsSync(own) && fs.lstatSync(own).isSymbolicLink() ? fs.realpathSync(own) : undefined;
  const placed = (dir: string) => (linkedTo && dir.startsWith(linkedTo + path.sep) ? path.join(own, dir.slice(linkedTo.length + 1)) : dir);
  const dependencies = [...found].map(placed).sort();
  // the highest folder holding a node_modules this tree uses
  const base = dependencies.reduce((top, dir) => {
    const owner = dir.slice(0, dir.indexOf(`${path.sep}node_modules${path.sep}`));
    return owner.length < top.length && top.startsWith(owner) ? owner : top;
  }, root);
  const hash = createHash('sha256');
  for (const dir of dependencies) hash.update(`${path.relative(base, dir)}@${readManifest(dir).version}\n`);
  for (const entry of PACKAGE_ENTRIES) hashTree(hash, path.join(root, entry), root);
  return { packageRoot: root, dependencies, base, digest: hash.digest('hex').slice(0, 12) };
}

/** Names, sizes and times of every file below `file`: cheap, and changes when a build changes it. */
function hashTree(hash: ReturnType<typeof createHash>, file: string, relativeTo: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return;
  }
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(file).sort()) hashTree(hash, path.join(file, name), relativeTo);
  } else hash.update(`${path.relative(relativeTo, file)}:${stat.size}:${stat.mtimeMs}\n`);
}

/**
 * Puts the files into two folders (hard links where the file system allows, copies
 * elsewhere), each laid out from `files.base`, so that the two merge into one tree: the
 * package's own files in `target.package`, the run-time dependencies in
 * `target.dependencies`. The image copies them in two steps, the dependencies first: they
 * change with the lockfile, the package's files with every build, and an engine reuses a
 * copy step whose files it has copied before (podman and docker key it by content).
 */
export function stageServerFiles(files: ServerFiles, target: { package: string; dependencies: string }): { packageDir: string } {
  const packageDir = path.join(target.package, path.relative(files.base, files.packageRoot));
  for (const entry of PACKAGE_ENTRIES) {
    const from = path.join(files.packageRoot, entry);
    if (fs.existsSync(from)) linkTree(from, path.join(packageDir, entry));
  }
  for (const dir of files.dependencies) {
    const to = path.join(target.dependencies, path.relative(files.base, dir));
    // a dependency nested in another is staged with it; its own nested node_modules are visited on their own
    linkTree(dir, to, (name) => name !== 'node_modules');
  }
  // an engine copies an empty folder, but none that is missing
  fs.mkdirSync(target.dependencies, { recursive: true });
  return { packageDir };
}

/** Mirrors a tree: files hard-linked (copied across file systems), links kept as links. */
export function linkTree(from: string, to: string, keep: (name: string) => boolean = () => true): void {
  const stat = fs.lstatSync(from);
  if (stat.isSymbolicLink()) {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    if (!fs.existsSync(to)) fs.symlinkSync(fs.readlinkSync(from), to);
  } else if (stat.isDirectory()) {
    fs.mkdirSync(to, { recursive: true });
    for (const name of fs.readdirSync(from)) if (keep(name)) linkTree(path.join(from, name), path.join(to, name));
  } else if (stat.isFile() && !fs.existsSync(to)) {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    try {
      fs.linkSync(from, to);
    } catch {
      fs.copyFileSync(from, to);
    }
  }
}
