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
 * has registered the ES module hooks already, for agentplane's own TypeScript.
 */
export function registerTypescriptLoader(firstModule: string): Promise<void> {
  registered ??= (async () => {
    const tsconfig = nearestTsconfig(path.dirname(firstModule));
    if (RUNNING_COMPILED) (await import('tsx/esm/api')).register({ tsconfig: tsconfig ?? false });
    const cjs = await import('tsx/cjs/api');
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
