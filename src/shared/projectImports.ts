// The packages a project's modules import, read from their text before they are loaded: the
// modules themselves and the project files they import by relative path, followed. A
// heuristic (a regular expression, no parser): it only decides which libraries are loaded
// ahead of tsx's hooks (projectModule.ts), so a miss costs time, never correctness.
import fs from 'node:fs';
import path from 'node:path';

// `import x from 'p'`, `import 'p'`, `export … from 'p'`, `import('p')`; not `import type`
const STATIC = /(?:^|[;\s])(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s*)?['"]([^'"\n]+)['"]/g;
const DYNAMIC = /\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)/g;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.jsx'];
/** Enough for any project's graphs; a larger tree is read no further (the rest loads as before). */
const MAX_FILES = 200;

/** The bare specifiers (`@langchain/langgraph`, `zod/v4`) imported by `files` and the project files they import. */
export function packagesImportedBy(files: readonly string[]): string[] {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const pending = [...files];
  while (pending.length && seen.size < MAX_FILES) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const pattern of [STATIC, DYNAMIC]) {
      for (const [, specifier] of text.matchAll(pattern)) {
        if (specifier.startsWith('.') || specifier.startsWith('/')) {
          const local = localFile(path.resolve(path.dirname(file), specifier));
          if (local) pending.push(local);
        } else if (!specifier.startsWith('node:') && !specifier.includes(':')) packages.add(specifier);
      }
    }
  }
  return [...packages];
}

/** The file a relative import names, as tsx finds it: as written, `.js` standing for `.ts`, or without an extension. */
function localFile(target: string): string | undefined {
  const candidates = [target, target.replace(/\.(m?)js(x?)$/, '.$1ts$2'), ...SOURCE_EXTENSIONS.map((ext) => target + ext), path.join(target, 'index.ts')];
  return candidates.find((candidate) => {
    try {
      return fs.statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/** The package a bare specifier names: `@scope/name` or `name`, without a subpath. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}
