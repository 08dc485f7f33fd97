// A start's check that the project's graphs load, remembered beside serve's compiled copies
// (projectCompile.ts) so that a start of an unchanged project answers without this thread
// importing LangGraph first (~550 files, ~40% of a start's main thread: issues 86 and 91). What
// the main thread needs before it has loaded the graphs is each graph's kind (GraphRegistry.deferred);
// that is what the record keeps, with everything that could change whether the graphs load:
//
// - in its key (its file's name): the compiled set (a hash of every compiled module's code), the
//   project's graph entries (their modules as absolute paths: the same graphs served from another
//   project file's folder are the same check, as the compile's record is keyed by its modules), how
//   function exports are read, node's version, and where this module lives (another install is another key);
// - in the record, checked each time as the compile's record is (projectCompileCache.ts): each
//   package the compiled modules import, by the package.json Node would find from the module's
//   source (content hash; every nearer place where one could appear, as absent), the lockfiles of
//   the node_modules it lies in (an install changes what the package imports in turn), the project
//   JSON files they import, and agentplane's own modules that load graphs (a build or an upgrade).
//
// A compiled module that imports a project JavaScript file is not recorded (what that file imports
// is not known without loading it): such projects are checked at every start. Only a check that
// loaded every graph is recorded; a record that does not read back whole, sound and equal in
// every input is a miss. The record lives in the set's folder and goes with it.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fixedInputs, identity } from './projectCompileCache.ts';
import { packageName } from './projectImports.ts';
import { removeUnused, writeWhole } from './cacheFiles.ts';

const FORMAT = 1;
const SELF = fileURLToPath(import.meta.url);
const EXTENSION = path.extname(SELF);
/** agentplane's modules whose code decides whether a graph loads (beside this one). */
const OWN_MODULES = ['../domain/agent/graphs/graphs', './projectModule', './langGraphRelease', './projectCompile', './typescriptLoader'].map((name) =>
  path.resolve(path.dirname(SELF), name + EXTENSION),
);
/** Records are removed once unused for this long (as the compile's, projectCompileCache.ts). */
const KEPT_MS = 24 * 3600_000;
const KINDS = new Set(['plain', 'langgraph', 'factory']);
/** esbuild's import and export statements and dynamic imports with a literal specifier (compiled copies only). */
const IMPORTED = /(?:\bfrom|\bimport)\s*\(?\s*"((?:[^"\\]|\\.)*)"/g;

export type GraphKind = 'plain' | 'langgraph' | 'factory';

/** What a start checks: the project's graph entries over the set serve compiled them in. */
export interface GraphCheckSubject {
  /** The compiled set's hash and its modules (source → copy's URL). */
  set: string;
  modules: Map<string, string>;
  /** The graph entries, each with its module's absolute path (graphSource). */
  graphs: Record<string, unknown>;
  functions: string;
}

/** Each graph's kind as a check that loaded them all found it, if nothing it depended on changed since; else undefined. */
export function readGraphCheck(subject: GraphCheckSubject): Record<string, GraphKind> | undefined {
  const file = recordFile(subject);
  if (!file) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!sound(record) || JSON.stringify(Object.keys(record.kinds)) !== JSON.stringify(Object.keys(subject.graphs))) return undefined;
  for (const [input, was] of record.inputs) if (identity(input, was.startsWith('s:')) !== was) return undefined;
  // marks the record used (its age decides when it is removed); a failure changes nothing
  const now = new Date();
  fs.promises.utimes(file, now, now).catch(() => undefined);
  return record.kinds;
}

/** Records a check that loaded every graph, with what it depended on now; a project that cannot be recorded, or a failure to write, records nothing. */
export async function writeGraphCheck(subject: GraphCheckSubject, kinds: Record<string, GraphKind>): Promise<boolean> {
  const file = recordFile(subject);
  const inputs = file && checkInputs(subject);
  if (!file || !inputs) return false;
  const record: CheckRecord = { format: FORMAT, kinds, inputs: [...inputs] };
  try {
    await writeWhole(file, JSON.stringify(record));
    // other projects' checks over the same set, unused for a day (their project folder gone or changed)
    await removeUnused(path.dirname(file), KEPT_MS, (name) => name.startsWith('graph-check-'));
    return true;
  } catch {
    return false;
  }
}

/** Removes the record (the graphs did not load after all): the next start checks them before it answers. */
export function forgetGraphCheck(subject: GraphCheckSubject): void {
  const file = recordFile(subject);
  if (file) fs.rmSync(file, { force: true });
}

/** The record's place in the set's folder, named by its key; undefined where the copies lie in no set folder. */
function recordFile(subject: GraphCheckSubject): string | undefined {
  const copy = [...subject.modules.values()][0];
  if (!copy || !/^[0-9a-f]{16}$/.test(subject.set)) return undefined;
  const place = fileURLToPath(copy);
  const at = place.lastIndexOf(`${path.sep}${subject.set}${path.sep}`);
  if (at < 0) return undefined;
  const key = createHash('sha256')
    .update(JSON.stringify([FORMAT, process.versions.node, SELF, subject.set, subject.functions, subject.graphs]))
    .digest('hex');
  return path.join(place.slice(0, at + subject.set.length + 1), `graph-check-${key.slice(0, 32)}.json`);
}

/** What the check depended on, each with its identity now; undefined where a module imports project JavaScript. */
function checkInputs(subject: GraphCheckSubject): Map<string, string> | undefined {
  const inputs = new Map<string, string>();
  const add = (input: string, byStat = false) => {
    if (!inputs.has(input)) inputs.set(input, identity(input, byStat));
  };
  for (const own of [SELF, ...OWN_MODULES]) add(own, true);
  const manifest = ownManifest();
  if (manifest) add(manifest);
  const sources = new Set(subject.modules.keys());
  const copies = new Set([...subject.modules.values()].map((url) => fileURLToPath(url)));
  for (const [source, url] of subject.modules) {
    let code: string;
    try {
      code = fs.readFileSync(fileURLToPath(url), 'utf8');
    } catch {
      return undefined;
    }
    // the release loadGraphs reads is the nearest @langchain/langgraph's, whether or not the module imports it
    const specifiers = new Set(['@langchain/langgraph', ...[...code.matchAll(IMPORTED)].map((match) => JSON.parse(`"${match[1]}"`) as string)]);
    for (const specifier of specifiers) {
      if (isBuiltin(specifier)) continue;
      if (specifier.startsWith('file:')) {
        const file = fileURLToPath(specifier);
        if (copies.has(file) || sources.has(file)) continue;
        if (!file.endsWith('.json')) return undefined;
        add(file);
        continue;
      }
      if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('#') || specifier.includes(':')) return undefined;
      for (const [input, byStat] of packageInputs(packageName(specifier), path.dirname(source))) add(input, byStat);
    }
  }
  return inputs;
}

/** The places package `name` is looked for from `dir`, nearest first up to the one found, and that node_modules' lockfiles. */
function packageInputs(name: string, dir: string): [string, boolean][] {
  const places: [string, boolean][] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (path.basename(at) !== 'node_modules') {
      const manifest = path.join(at, 'node_modules', name, 'package.json');
      places.push([manifest, false]);
      if (fs.existsSync(manifest)) {
        let folder = path.join(at, 'node_modules');
        try {
          folder = fs.realpathSync(folder);
        } catch {
          // read as it is named
        }
        return [...places, ...fixedInputs(folder).map(([input]): [string, boolean] => [input, true])];
      }
    }
    if (path.dirname(at) === at) return places;
  }
}

/** agentplane's package.json (its version), the first above this module. */
function ownManifest(): string | undefined {
  for (let dir = path.dirname(SELF); path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) return manifest;
  }
  return undefined;
}

interface CheckRecord {
  format: number;
  kinds: Record<string, GraphKind>;
  inputs: [string, string][];
}

function sound(record: unknown): record is CheckRecord {
  if (typeof record !== 'object' || record === null) return false;
  const r = record as Partial<CheckRecord>;
  return (
    r.format === FORMAT &&
    typeof r.kinds === 'object' &&
    r.kinds !== null &&
    Object.values(r.kinds).every((kind) => KINDS.has(kind)) &&
    Array.isArray(r.inputs) &&
    r.inputs.every((pair) => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && path.isAbsolute(pair[0]) && typeof pair[1] === 'string')
  );
}
