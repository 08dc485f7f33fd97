// tsx's loader for a project's modules, as the upstream dev server loads them: it runs its whole
// server under the tsx CLI, which hooks both of Node's module systems. Both matter: in a
// package whose package.json has no "type" field (what `npm i @langchain/langgraph` writes) a
// `.ts` file is CommonJS, and Node loads a CommonJS module with its own require() even when an
// ES module imports it; with tsx's ES module hooks alone that require() reads TypeScript as
// JavaScript (`Unexpected token ':'`). The CommonJS hooks also resolve `./u1.js` to `./u1.ts`
// and `./u1` to a TypeScript file there, and `.cts` files. The project's tsconfig.json (its
// `paths` aliases) is the one nearest the first module loaded, as the tsx CLI finds the one of
// the directory it starts in: one per process, since the hooks are global.
import fs from 'node:fs';
import path from 'node:path';

const RUNNING_COMPILED = import.meta.url.endsWith('.js');
let registered: Promise<void> | undefined;

/**
 * Registers tsx's hooks once per thread (the hooks of one thread do not reach another: each run
 * worker registers its own). From the sources, the entry (bin/agentplane.js, a worker's entry)
 * has registered the ES module hooks already, for agentplane's own TypeScript. `modules` are
 * the project's modules about to be loaded, the first one's tsconfig.json taken.
 */
export function registerTypescriptLoader(modules: readonly string[]): Promise<void> {
  registered ??= (async () => {
    const tsconfig = nearestTsconfig(path.dirname(modules[0]));
    const [esm, cjs] = await importWithoutCompileCache(() => Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]), !modules.some(loadedByRequire));
    // the ES module hooks' thread starts here, with a copy of the environment as it is now
    if (RUNNING_COMPILED) startHooksThreadWithoutCompileCache(() => esm.register({ tsconfig: tsconfig ?? false }));
    // tsx's CommonJS hooks take the tsconfig from the environment only; it is put back after
    const before = process.env.TSX_TSCONFIG_PATH;
    if (tsconfig) process.env.TSX_TSCONFIG_PATH = tsconfig;
    try {
      cjs.register();
    } finally {
      if (before === undefined) delete process.env.TSX_TSCONFIG_PATH;
      else process.env.TSX_TSCONFIG_PATH = before;
    }
  })();
  return registered;
}

/** Whether the hooks are registered (or being registered) in this thread. */
export function typescriptLoaderRegistered(): boolean {
  return registered !== undefined;
}

/** The tsconfig.json in `dir` or the nearest directory above it (get-tsconfig's search, which tsx uses from its working directory). */
export function nearestTsconfig(dir: string): string | undefined {
  for (let at = dir; ; at = path.dirname(at)) {
    const candidate = path.join(at, 'tsconfig.json');
    if (fs.existsSync(candidate)) return candidate;
    if (path.dirname(at) === at) return undefined;
  }
}

/**
 * tsx keeps what it compiled on disk, a file per compiled version in a folder of the temporary
 * directory kept for a week, and lists that folder in every thread that loads it: ~50 ms of
 * CPU at 35,000 files (a machine that runs the tests), paid by the main thread before it can
 * answer. This thread's tsx only compiles what require() loads (CommonJS TypeScript); ES
 * modules are compiled on the hooks' own thread (without the cache either: see
 * startHooksThreadWithoutCompileCache). So where none of the
 * project's modules is loaded by require(), this thread loads tsx with its cache off
 * (TSX_DISABLE_CACHE, read once as tsx's modules load; a CommonJS file found later is only
 * compiled afresh) and the variable is put back before anything else may read it.
 */
export async function importWithoutCompileCache<T>(load: () => Promise<T>, withoutCache: boolean): Promise<T> {
  const before = process.env.TSX_DISABLE_CACHE;
  if (withoutCache) process.env.TSX_DISABLE_CACHE = '1';
  try {
    return await load();
  } finally {
    if (before === undefined) delete process.env.TSX_DISABLE_CACHE;
    else process.env.TSX_DISABLE_CACHE = before;
  }
}

/**
 * The ES module hooks' thread is started without tsx's compile cache, whatever the project: the
 * main thread waits in register() while that thread starts, and tsx's cache made it wait longer
 * than compiling afresh does. The cache lists its whole folder as it loads (a folder every
 * project run through tsx on the machine shares, each file kept a week: 36,000 files where the
 * tests run) and looks each module up in that list; without it, the project's modules go to
 * esbuild's service, a process of its own, on the other core. Measured, 8 starts each at load
 * ~8: register() waited 150 ms without the cache, 237 ms with a folder of 3 files and 346 ms
 * with 36,000; the bench's graph then loaded in 49, 29 and 45 ms. The hooks' thread copies the
 * environment when it is made, so the variable is set for the call alone and put back.
 */
export function startHooksThreadWithoutCompileCache(register: () => void): void {
  const before = process.env.TSX_DISABLE_CACHE;
  process.env.TSX_DISABLE_CACHE = '1';
  try {
    register();
  } finally {
    if (before === undefined) delete process.env.TSX_DISABLE_CACHE;
    else process.env.TSX_DISABLE_CACHE = before;
  }
}

/** Whether tsx loads `file` as CommonJS: `.cts`, or `.ts`/`.tsx` (and plain `.js`) in a package whose package.json says no `"type": "module"`. */
export function loadedByRequire(file: string): boolean {
  if (/\.(cts|cjs)$/.test(file)) return true;
  if (/\.(mts|mjs)$/.test(file)) return false;
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        return JSON.parse(fs.readFileSync(manifest, 'utf8')).type !== 'module';
      } catch {
        return true;
      }
    }
    if (path.dirname(dir) === dir) return true;
  }
}
