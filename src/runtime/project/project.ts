// The project file: discovery (`--config`, else agentplane.json, else langgraph.json), its
// validation against spec/project.schema.json (through the generated validator), the
// environment it names, and the notices a person should see at start.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { PROJECT_KEYS, type ProjectFile } from '../../../generated/project/types.gen.ts';
import { validateProject } from '../../../generated/project/validator.gen.js';
import { PACKAGE_COMMAND, packagePath } from '../packageRoot.ts';

export type { ProjectFile };

/** Project files looked for in the working directory, in this order. */
export const PROJECT_FILE_NAMES = ['agentplane.json', 'langgraph.json'] as const;

/** The shipped example project (the `echo` and `agent` graphs) that `--examples` serves. */
export const EXAMPLES_PROJECT_FILE = packagePath('examples', 'agentplane.json');

/** What a person can do when the working directory has no project file: [what to type, what it does]. */
export const NO_PROJECT_NEXT_STEPS: [string, string][] = [
  [`${PACKAGE_COMMAND} init`, 'scaffold a minimal project here (langgraph.json and one graph)'],
  [`${PACKAGE_COMMAND} serve --examples`, 'serve the shipped example graphs (echo, agent)'],
  ['write a langgraph.json', 'name your own graphs (README: "Bring your LangGraph project")'],
];

const KNOWN_KEYS = new Set<string>([...PROJECT_KEYS, '$schema']);
/** Upstream keys that mean nothing here; said once at start so nobody wonders. */
const IGNORED_KEYS: Record<string, string> = {
  python_version: 'agentplane serves LangGraph.js graphs only',
  dockerfile_lines: 'agentplane builds no image',
  image_distro: 'agentplane builds no image',
};

export interface LoadedProject {
  file: string;
  project: ProjectFile;
  /** Things that do not stop the start but that a person should read (unknown keys, no graphs). */
  warnings: string[];
}

export class ProjectFileError extends Error {
  constructor(file: string, problem: string, namedBy?: string) {
    super(`project file ${file}${namedBy ? ` (${namedBy})` : ''}: ${problem}`);
    this.name = 'ProjectFileError';
  }
}

/** The project file to read, or null when there is none (the server then has no graphs). */
export function discoverProjectFile(given: string | undefined, cwd: string): string | null {
  if (given) {
    const file = path.resolve(cwd, given);
    if (!fs.existsSync(file)) throw new ProjectFileError(file, 'not found (named by --config or AGENTPLANE_CONFIG)');
    return file;
  }
  for (const name of PROJECT_FILE_NAMES) {
    const file = path.resolve(cwd, name);
    if (fs.existsSync(file)) return file;
  }
  return null;
}

/** `namedBy` says which setting chose the file (--config / AGENTPLANE_CONFIG, or discovery), for errors. */
export function readProjectFile(file: string, namedBy?: string): LoadedProject {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    // not a JSON problem: the file is a directory, or not readable by this user, or gone
    throw new ProjectFileError(file, `cannot be read: ${(err as Error).message}`, namedBy);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new ProjectFileError(file, `is not valid JSON: ${(err as Error).message}`, namedBy);
  }
  if (!validateProject(parsed)) {
    const problems = (validateProject.errors ?? []).slice(0, 5).map((e) => {
      const where = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(top level)';
      const expected = e.keyword === 'oneOf' ? 'must match one of its documented forms' : e.message;
      return `${where} ${expected}`;
    });
    throw new ProjectFileError(file, [...new Set(problems)].join('; '), namedBy);
  }
  const project = parsed as ProjectFile;
  const warnings: string[] = [];
  for (const key of Object.keys(project)) {
    if (!KNOWN_KEYS.has(key)) {
      const near = [...KNOWN_KEYS].find((known) => editDistance(key.toLowerCase(), known) <= Math.min(2, known.length - 2));
      warnings.push(
        `unknown key "${key}" in ${file} is ignored${near ? ` (did you mean "${near}"?)` : ''} (known keys: ${[...KNOWN_KEYS].filter((k) => k !== '$schema').join(', ')})`,
      );
    } else if (IGNORED_KEYS[key]) warnings.push(`"${key}" in ${file} is ignored: ${IGNORED_KEYS[key]}`);
  }
  if (!project.graphs || Object.keys(project.graphs).length === 0) warnings.push(`${file} names no graphs: the agent server will have no assistants`);
  warnings.push(...versionNotices(file, project));
  return { file, project, warnings };
}

/** dotenv's parser, required where a project names a dotenv file: most starts name none, and its import was a few ms of each (issue 86). */
const parseDotenv = (text: Buffer): Record<string, string> => (createRequire(import.meta.url)('dotenv') as typeof import('dotenv')).parse(text);

/**
 * The project's `env`: a dotenv file (relative to the project file) or an object. Variables
 * already set win, as with upstream's CLI. Returns the names it set.
 */
export function applyProjectEnv(loaded: LoadedProject, env: Record<string, string | undefined>): string[] {
  const { project, file } = loaded;
  if (project.env === undefined) return [];
  let values: Record<string, string>;
  if (typeof project.env === 'string') {
    const envFile = path.resolve(path.dirname(file), project.env);
    try {
      values = parseDotenv(fs.readFileSync(envFile));
    } catch (err) {
      throw new ProjectFileError(file, `env names ${envFile}, which cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  } else values = project.env;
  const set: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    if (env[name] !== undefined) continue;
    env[name] = value;
    fromProject.add(name);
    set.push(name);
  }
  return set;
}

/** Levenshtein distance, for "did you mean" on a misspelt key. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const next = [i];
    for (let j = 1; j <= b.length; j += 1) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

function versionNotices(file: string, project: ProjectFile): string[] {
  const notices: string[] = [];
  if (project.node_version !== undefined) {
    const wanted = String(project.node_version).split('.')[0];
    const running = process.versions.node.split('.')[0];
    if (wanted !== running) notices.push(`${file} asks for Node.js ${project.node_version}; this is Node.js ${process.versions.node}`);
  }
  const missing = (project.dependencies ?? []).filter((dep) => dep !== '.' && !dep.startsWith('.') && !isResolvable(dep, path.dirname(file)));
  if (missing.length)
    notices.push(`${file} lists dependencies that are not installed next to it: ${missing.join(', ')} (agentplane installs nothing; run your package manager)`);
  return notices;
}

function isResolvable(dependency: string, dir: string): boolean {
  const name = dependency.replace(/(?<=.)@.*$/, '');
  for (let at = dir; ; at = path.dirname(at)) {
    if (fs.existsSync(path.join(at, 'node_modules', name, 'package.json'))) return true;
    if (path.dirname(at) === at) return false;
  }
}

/**
 * The project file read again for a reload (agentplane dev): its env is applied again, and
 * values that came from it (not from the shell) may change.
 */
export function reloadProject(file: string, env: Record<string, string | undefined>): ProjectFile {
  const loaded = readProjectFile(file);
  for (const name of fromProject) delete env[name];
  applyProjectEnv(loaded, env);
  return loaded.project;
}

/** Names the project file's env set in this process (a reload may replace them). */
const fromProject = new Set<string>();
