// Files of a checkout that the control plane reads or the agent server loads: the project
// file (`graph_config_path`) and the modules and env file it names. A path may be a symbolic
// link, and a tenant's repository chooses where links point: each is followed to its real
// path and must stay inside the checkout, or the revision is refused.
import fs from 'node:fs';
import path from 'node:path';

export type Confined = { ok: true; file: string } | { ok: false; problem: string };

/** The real path of `target` when it is a file inside `root`, else why not; `named` says what names it. */
export function confinedFile(root: string, target: string, named: string): Confined {
  const realRoot = fs.realpathSync(root);
  let real: string;
  try {
    real = fs.realpathSync(target);
  } catch {
    return { ok: false, problem: `${named} is not a file of the repository` };
  }
  if (!real.startsWith(realRoot + path.sep)) return { ok: false, problem: `${named} leads out of the repository (through a symbolic link or "..")` };
  if (!fs.statSync(real).isFile()) return { ok: false, problem: `${named} is not a file of the repository` };
  return { ok: true, file: real };
}

/** `./module.ts:export` → `./module.ts` (an env file path has no export). */
const modulePath = (spec: string) => spec.replace(/:[A-Za-z_$][\w$]*$/, '');

/** The files a project file names (relative to it), each with what names it. */
function namedFiles(project: Record<string, any>): { what: string; file: string }[] {
  const named: { what: string; file: string }[] = [];
  for (const [id, entry] of Object.entries(project.graphs ?? {})) {
    const spec = typeof entry === 'string' ? entry : (entry as { path?: unknown })?.path;
    if (typeof spec === 'string') named.push({ what: `graph "${id}"`, file: modulePath(spec) });
  }
  if (typeof project.auth?.path === 'string') named.push({ what: 'auth.path', file: modulePath(project.auth.path) });
  if (typeof project.http?.app === 'string') named.push({ what: 'http.app', file: modulePath(project.http.app) });
  if (typeof project.env === 'string') named.push({ what: 'env', file: project.env });
  return named;
}

const exists = (file: string) => {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
};

/**
 * The project file's real path when it and every file it names are inside the checkout. A
 * named file that is not there at all is left to the agent server to report.
 */
export function confinedProjectFile(checkoutDir: string, configPath: string): Confined {
  const config = confinedFile(checkoutDir, path.resolve(checkoutDir, configPath), `graph_config_path "${configPath}"`);
  if (!config.ok) return config;
  let project: unknown;
  try {
    project = JSON.parse(fs.readFileSync(config.file, 'utf8'));
  } catch {
    return config; // not JSON: the agent server says what is wrong with it
  }
  if (!project || typeof project !== 'object') return config;
  for (const { what, file } of namedFiles(project as Record<string, any>)) {
    const target = path.resolve(path.dirname(config.file), file);
    if (!exists(target)) continue;
    const named = confinedFile(checkoutDir, target, `${what} of ${configPath} ("${file}")`);
    if (!named.ok) return named;
  }
  return config;
}
