// Whether dist/ was compiled from the sources as they are now. In a clone `npm ci` builds
// dist/ (`prepare`), and the compiled JavaScript starts in ~0.8 s where the same sources run
// through tsx's hooks take ~1.2 s (every file a round trip to tsx's loader thread); but a
// dist/ older than an edit must never run, so the build records when it started and the size
// of every file it compiled, and dist/ counts as current only while no such file was added,
// removed, resized or modified since. Plain JavaScript without dependencies: the CLI's entry
// point reads it before anything else is loaded.
import fs from 'node:fs';
import path from 'node:path';

/** What `npm run build` compiles into dist/ (tsconfig.build.json's include, and the configs), and the bundler of dist/bundle/. */
export const COMPILED_SOURCES = [
  'src',
  'generated',
  'test/conformance/lib',
  'test/conformance/remote.suite.ts',
  'tsconfig.build.json',
  'tsconfig.json',
  'scripts/bundleServer.ts',
];
/** Written into dist/ at the end of a build. */
export const BUILD_STAMP = 'build-stamp.json';

/**
 * Every file under the compiled sources with its size and modification time (ms). Every start
 * in a clone walks the ~530 files first, so the walk is kept lean: directories are told by
 * their entries' types (no stat of their own), paths are joined by hand.
 */
export function compiledSourceFiles(root) {
  const files = {};
  const add = (relative, stat) => {
    files[relative] = { size: stat.size, mtimeMs: stat.mtimeMs };
  };
  const visitDir = (full, relative) => {
    let entries;
    try {
      entries = fs.readdirSync(full, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const childFull = `${full}/${entry.name}`;
      const childRelative = `${relative}/${entry.name}`;
      if (entry.isDirectory()) visitDir(childFull, childRelative);
      else visit(childFull, childRelative, entry.isSymbolicLink());
    }
  };
  // a path named by COMPILED_SOURCES, or a link found in a folder: stat'ed (following links)
  const visit = (full, relative, mayBeDirectory = true) => {
    const stat = fs.statSync(full, { throwIfNoEntry: false });
    if (!stat) return;
    if (mayBeDirectory && stat.isDirectory()) visitDir(full, relative);
    else add(relative, stat);
  };
  for (const source of COMPILED_SOURCES) visit(path.join(root, source), source);
  return files;
}

/** The stamp a build writes: when it started reading the sources, and their sizes. */
export function buildStamp(root, startedAtMs) {
  const files = compiledSourceFiles(root);
  return { started_at_ms: startedAtMs, sizes: Object.fromEntries(Object.entries(files).map(([file, { size }]) => [file, size])) };
}

/** True when `distDir` holds a build of the sources under `root` as they are now. */
export function compiledIsCurrent(root, distDir = path.join(root, 'dist')) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(path.join(distDir, BUILD_STAMP), 'utf8'));
  } catch {
    return false;
  }
  const built = stamp?.sizes ?? {};
  const now = compiledSourceFiles(root);
  if (Object.keys(now).length !== Object.keys(built).length) return false;
  for (const [file, { size, mtimeMs }] of Object.entries(now)) {
    // modified after the build began reading: it may not be in dist/
    if (built[file] !== size || mtimeMs >= stamp.started_at_ms) return false;
  }
  return true;
}
