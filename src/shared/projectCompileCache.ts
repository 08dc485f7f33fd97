// What serve's compile of the project (projectCompile.ts) made, kept beside its compiled copies so
// that a start of an unchanged project imports them without esbuild: no service process spawned
// (~80 ms of the main thread once the process is big, issue 86), no build. The record is keyed by
// the entry modules and this compiler's own file (a rebuilt or upgraded server compiles afresh),
// and lists every input the compile read with its identity (a file's content hash, a folder's or
// a large file's mtime and inode: `identity`): each
// module compiled, the folders its imports were resolved in (a file added there may resolve
// instead), the package.json and tsconfig.json it read, and the lockfiles of the node_modules the
// copies live in (an install may change what resolves to a package). Any difference, a missing
// copy, or a record that does not read back whole and sound is a miss: the project is compiled
// again and the record replaced (written whole or not at all, so concurrent starts each read a
// complete one). The copies' places are not taken from the record: they are made again from the
// modules' paths and must lie inside their set's folder, so a record cannot point an import
// anywhere else.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeUnused, writeWhole } from './cacheFiles.ts';

const FORMAT = 1;
const SET = /^[0-9a-f]{16}$/;
/** Records are removed once unused for this long (their project gone or changed since). */
const KEPT_MS = 24 * 3600_000;
/** npm's, yarn's, pnpm's and bun's: what an install changes. */
const LOCKFILES = ['.package-lock.json', '../package-lock.json', '../npm-shrinkwrap.json', '../yarn.lock', '../pnpm-lock.yaml', '../bun.lock', '../bun.lockb'];
const COMPILER = fileURLToPath(import.meta.url);

/** A compile's set (its hash), its modules, and the identity of each input it read when it read it. */
export interface CompiledSet {
  hash: string;
  modules: string[];
  inputs: Map<string, string>;
}

/**
 * The identity of an input now: a file's content (its hash: a file written again unchanged, as
 * a checkout or a generator does, still hits), a folder's mtime (ns) and inode, `-` when absent.
 * `byStat`: a large file (a lockfile, this compiler) by its size, mtime and inode instead.
 */
export function identity(input: string, byStat = false): string {
  try {
    const stat = fs.statSync(input, { bigint: true });
    if (stat.isDirectory()) return `d:${stat.mtimeNs}:${stat.ino}`;
    if (byStat) return `s:${stat.size}:${stat.mtimeNs}:${stat.ino}`;
    return `h:${createHash('sha256').update(fs.readFileSync(input)).digest('hex')}`;
  } catch {
    return '-';
  }
}

/** The identity of `input` now, the same way as `was` was taken. */
function identityLike(input: string, was: string): string {
  return identity(input, was.startsWith('s:'));
}

/** The inputs every compile reads besides its modules, each with its identity now: this compiler, the lockfiles of `nodeModules`. */
export function fixedInputs(nodeModules: string): [string, string][] {
  return [COMPILER, ...LOCKFILES.map((name) => path.join(nodeModules, name))].map((input) => [input, identity(input, true)]);
}

/**
 * The tsconfig inputs of a compile whose modules start in `dir`, each with its identity now: every
 * `tsconfig.json` place from `dir` up to the nearest one (the missing ones as `-`, so one added
 * nearer is a miss) and the files that one `extends`, transitively. The extends chain's names are
 * found in the text without parsing it (hand-written: a name picked up from a comment is one more
 * input, which can only cost a miss); a package's config is covered by the lockfiles.
 */
export function tsconfigInputs(dir: string): [string, string][] {
  const found: [string, string][] = [];
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, 'tsconfig.json');
    found.push([candidate, identity(candidate)]);
    if (found.at(-1)![1] !== '-') break;
    if (path.dirname(at) === at) return found;
  }
  const pending = [found.at(-1)![0]];
  const seen = new Set(pending);
  while (pending.length && seen.size <= MAX_TSCONFIGS) {
    const config = pending.pop()!;
    let text: string;
    try {
      text = fs.readFileSync(config, 'utf8');
    } catch {
      continue;
    }
    for (const name of extendedNames(text)) {
      if (!name.startsWith('.') && !path.isAbsolute(name)) continue;
      const base = path.resolve(path.dirname(config), name);
      for (const file of base.endsWith('.json') ? [base] : [base, `${base}.json`]) {
        if (seen.has(file)) continue;
        seen.add(file);
        found.push([file, identity(file)]);
        pending.push(file);
      }
    }
  }
  return found;
}

/** A chain of extends longer than this is cut (a cycle is cut by `seen`). */
const MAX_TSCONFIGS = 32;

/** The names in a tsconfig's `"extends"` (a string or an array of strings). */
function extendedNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/"extends"\s*:\s*(\[[^\]]*\]|"(?:[^"\\]|\\.)*")/g)) {
    for (const quoted of match[1].matchAll(/"((?:[^"\\]|\\.)*)"/g)) names.push(quoted[1]);
  }
  return names;
}

/** Where the record of `entries`' compile is kept under `nodeModules` (a real path). */
function recordFile(nodeModules: string, entries: readonly string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify([FORMAT, process.versions.node, COMPILER, [...entries].sort()]))
    .digest('hex');
  return path.join(nodeModules, '.cache', 'agentplane', 'projects', `${key.slice(0, 32)}.json`);
}

/**
 * The compiled copies of `entries` (their set, module → copy's path) kept from an earlier compile, if every
 * input is as it was then; else undefined. `placeOf` gives a module's copy in a set.
 */
export function readCompiledSet(
  nodeModules: string,
  entries: readonly string[],
  placeOf: (file: string, hash: string) => string,
): { hash: string; places: Map<string, string> } | undefined {
  const file = recordFile(nodeModules, entries);
  let record: unknown;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!sound(record) || JSON.stringify([...entries].sort()) !== JSON.stringify(record.entries)) return undefined;
  const inputs = new Map(record.inputs);
  if (entries.some((entry) => !record.modules.includes(entry))) return undefined;
  if (record.modules.some((module) => !inputs.has(module))) return undefined;
  for (const [input, was] of inputs) if (identityLike(input, was) !== was) return undefined;
  const setFolder = path.join(nodeModules, '.cache', 'agentplane', 'modules', record.hash);
  const places = new Map<string, string>();
  for (const module of record.modules) {
    let place: string;
    try {
      place = placeOf(module, record.hash);
    } catch {
      return undefined;
    }
    const inside = path.relative(setFolder, place);
    if (!inside || inside.startsWith('..') || path.isAbsolute(inside) || !fs.existsSync(place)) return undefined;
    places.set(module, place);
  }
  // marks the record used (its age decides when it is removed); a failure changes nothing
  const now = new Date();
  fs.promises.utimes(file, now, now).catch(() => undefined);
  return { hash: record.hash, places };
}

/** Keeps `set`, the compile of `entries`, for the next start; removes records unused for a day. A failure only costs the next start a compile. */
export async function writeCompiledSet(nodeModules: string, entries: readonly string[], set: CompiledSet): Promise<void> {
  const file = recordFile(nodeModules, entries);
  const record: CacheRecord = { format: FORMAT, entries: [...entries].sort(), hash: set.hash, modules: set.modules, inputs: [...set.inputs] };
  try {
    await writeWhole(file, JSON.stringify(record));
    await removeUnused(path.dirname(file), KEPT_MS);
  } catch {
    // another process removed or is writing the folder
  }
}

interface CacheRecord {
  format: number;
  entries: string[];
  hash: string;
  modules: string[];
  inputs: [string, string][];
}

function sound(record: unknown): record is CacheRecord {
  if (typeof record !== 'object' || record === null) return false;
  const r = record as Partial<CacheRecord>;
  const paths = (xs: unknown): xs is string[] => Array.isArray(xs) && xs.every((x) => typeof x === 'string' && path.isAbsolute(x));
  return (
    r.format === FORMAT &&
    typeof r.hash === 'string' &&
    SET.test(r.hash) &&
    paths(r.entries) &&
    paths(r.modules) &&
    Array.isArray(r.inputs) &&
    r.inputs.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && path.isAbsolute(pair[0]) && typeof pair[1] === 'string')
  );
}
