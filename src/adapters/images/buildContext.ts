// What of a project goes into its image: the folder, less what Docker's own build would leave
// out of its context. Always `.git` and every dotenv file (`.env`, `.env.*`, at any depth: its
// values are secrets, and an image is shared), then the project's `.dockerignore`, read as
// Docker reads it (@balena/dockerignore: Go's filepath.Match anchored at the context root,
// `**`, and `!` exceptions where the last matching line wins, so `!.env.example` puts that one
// back). A dotenv file the project file names as its `env` is left as an empty file, so the
// server in the image still loads the project; its variables come from the environment the
// image runs in (`-e`, the deployment's secrets).
import fs from 'node:fs';
import path from 'node:path';
import dockerignoreModule from '@balena/dockerignore';
import { linkTree } from './serverFiles.ts';

// a CommonJS module (module.exports = the factory) whose types declare it an ES default export
const dockerignore = dockerignoreModule as unknown as typeof dockerignoreModule.default;

/** Left out of every image, before the project's own `.dockerignore` lines. */
export const ALWAYS_LEFT_OUT = ['.git', '**/.env', '**/.env.*'];

export interface StagedContext {
  /** Paths (relative, `/`-separated) left out: files, or folders left out whole. */
  leftOut: string[];
  /** The project's env file, relative, when it was left out and stands empty in the image. */
  emptiedEnvFile: string | null;
}

/** Mirrors `projectDir` into `target` without what the image must not hold (see the top of this file). */
export function stageProjectContext(projectDir: string, configPath: string, target: string): StagedContext {
  const patterns = [...ALWAYS_LEFT_OUT, ...dockerignoreLines(projectDir)];
  // Docker (and Linux file names) match case-sensitively
  const ignore = dockerignore({ ignorecase: false }).add(patterns);
  // the fixed part of each exception: a folder left out is walked only where one may re-include something below it
  const exceptions = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1).replace(/^\//, '').split(/[*?[]/)[0]!);
  const mayReinclude = (folder: string) => exceptions.some((fixed) => fixed.startsWith(`${folder}/`) || `${folder}/`.startsWith(fixed));
  const leftOut: string[] = [];
  /** Stages `relative`; whether anything of it reached the context. */
  const walk = (relative: string, into: string[]): boolean => {
    const from = path.join(projectDir, relative);
    const slashed = relative.split(path.sep).join('/');
    const ignored = relative !== '' && ignore.ignores(slashed);
    if (!fs.lstatSync(from).isDirectory()) {
      if (ignored) into.push(slashed);
      else linkTree(from, path.join(target, relative));
      return !ignored;
    }
    if (ignored && !mayReinclude(slashed)) {
      into.push(`${slashed}/`);
      return false;
    }
    // a folder left out exists in the context only for what an exception puts back in it
    if (!ignored) fs.mkdirSync(path.join(target, relative), { recursive: true });
    const inside: string[] = [];
    let staged = false;
    for (const name of fs.readdirSync(from).sort()) staged = walk(path.join(relative, name), inside) || staged;
    into.push(...(ignored && !staged ? [`${slashed}/`] : inside));
    return staged || !ignored;
  };
  walk('', leftOut);
  const envFile = namedEnvFile(projectDir, configPath);
  let emptiedEnvFile: string | null = null;
  if (envFile && fs.existsSync(path.join(projectDir, envFile)) && !fs.existsSync(path.join(target, envFile))) {
    fs.mkdirSync(path.dirname(path.join(target, envFile)), { recursive: true });
    fs.writeFileSync(path.join(target, envFile), '', { mode: 0o644 });
    emptiedEnvFile = envFile.split(path.sep).join('/');
  }
  return { leftOut, emptiedEnvFile };
}

/** The lines of the project's `.dockerignore` that are patterns (comments and blanks dropped by the library too). */
function dockerignoreLines(projectDir: string): string[] {
  try {
    return fs.readFileSync(path.join(projectDir, '.dockerignore'), 'utf8').split(/\r?\n/);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** The dotenv file the project file names (`"env": "<file>"`), relative to projectDir, when it lies inside it. */
function namedEnvFile(projectDir: string, configPath: string): string | null {
  const configFile = path.resolve(projectDir, configPath);
  let env: unknown;
  try {
    env = (JSON.parse(fs.readFileSync(configFile, 'utf8')) as { env?: unknown }).env;
  } catch {
    // the server in the image says what is wrong with its project file
    return null;
  }
  if (typeof env !== 'string') return null;
  const relative = path.relative(projectDir, path.resolve(path.dirname(configFile), env));
  return relative.startsWith('..') || path.isAbsolute(relative) ? null : relative;
}
