// The package.json `agentplane init` leaves in a project: the packages the scaffold's graph
// imports, so that `npm install` alone makes it runnable (and a container build installs
// them), as upstream's templates list them. An existing package.json is the person's own:
// it is merged into, never replaced — only the missing packages are added to `dependencies`,
// everything else (other fields, versions already chosen, indentation) is kept.
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_DEPENDENCIES } from '../runtime/packageRoot.ts';

/** What the scaffold's graph imports: LangGraph, and LangChain core, its peer. */
export const SCAFFOLD_PACKAGES = ['@langchain/langgraph', '@langchain/core'] as const;

/**
 * The range a new project asks for: a caret on the version agentplane ships, so npm installs
 * that release or a newer compatible one (agentplane serves a project's own LangGraph).
 */
export const scaffoldRange = (name: string): string => `^${PACKAGE_DEPENDENCIES[name]}`;

export type PackageJsonResult =
  | { action: 'created'; added: string[] }
  | { action: 'merged'; added: string[] }
  /** It lists every package already (in any of its dependency fields). */
  | { action: 'kept'; added: [] }
  /** Not a JSON object: left as it is, the packages are for the person to add. */
  | { action: 'unreadable'; added: [] };

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;

type Manifest = Record<string, unknown> & Partial<Record<(typeof DEPENDENCY_FIELDS)[number], Record<string, string>>>;

/** Writes or completes `dir`/package.json so that it lists the scaffold's packages. */
export function writeScaffoldPackageJson(dir: string): PackageJsonResult {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) {
    const dependencies = Object.fromEntries(SCAFFOLD_PACKAGES.map((name) => [name, scaffoldRange(name)]));
    // private: a project is deployed, not published; module: the graph is written as ES modules
    const manifest = { name: packageName(dir), private: true, type: 'module', dependencies };
    fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
    return { action: 'created', added: [...SCAFFOLD_PACKAGES] };
  }
  const text = fs.readFileSync(file, 'utf8');
  let manifest: Manifest;
  try {
    manifest = JSON.parse(text) as Manifest;
  } catch {
    return { action: 'unreadable', added: [] };
  }
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest)) return { action: 'unreadable', added: [] };
  const listed = (name: string) =>
    DEPENDENCY_FIELDS.some((field) => typeof manifest[field] === 'object' && manifest[field] !== null && name in manifest[field]);
  const added = SCAFFOLD_PACKAGES.filter((name) => !listed(name));
  if (!added.length) return { action: 'kept', added: [] };
  const dependencies = typeof manifest.dependencies === 'object' && manifest.dependencies !== null ? manifest.dependencies : {};
  manifest.dependencies = { ...dependencies, ...Object.fromEntries(added.map((name) => [name, scaffoldRange(name)])) };
  fs.writeFileSync(file, `${JSON.stringify(manifest, null, indentOf(text))}${text.endsWith('\n') ? '\n' : ''}`);
  return { action: 'merged', added };
}

/** The folder's name made a valid package name (lower case, URL-safe), as `npm init` derives one. */
function packageName(dir: string): string {
  const name = path
    .basename(path.resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9-._~]+/g, '-')
    .replace(/^[._-]+/, '');
  return name || 'langgraph-project';
}

/** The indentation of a JSON text's first nested line (two spaces when it has none). */
function indentOf(text: string): string {
  return /^[{[]\s*?\n([ \t]+)\S/.exec(text)?.[1] ?? '  ';
}
