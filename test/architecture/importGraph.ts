// The repository's import graph, for the layer test: every code file under the given folders
// with the files of ours it imports (static, dynamic, type-only, re-exports, require), and the
// import cycles in it. Read with the TypeScript compiler's own import scanner
// (`ts.preProcessFile`) and module resolution, not with madge: madge parses every file whole
// (~23 CPU-s over the repository, the costliest file of npm test), the scanner only reads
// the import statements (~2 CPU-s) and gave the same edges over every file (compared once;
// madge followed two imports to a declaration file's JavaScript and to styles, as here).
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface ImportGraph {
  /** Each code file (relative to the root) with the files of the repository it imports. */
  graph: Record<string, string[]>;
  /** Each set of files that import one another in a circle (empty: none). */
  cycles: string[][];
}

const CODE_FILE = /\.(ts|tsx|js|mjs|cjs)$/;
const OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
  allowJs: true,
  resolveJsonModule: true,
};

function codeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(file);
    return CODE_FILE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [file] : [];
  });
}

/** The module a relative specifier of `importer` names: a declaration stands for the JavaScript beside it; a style or a component file is itself. */
function resolve(specifier: string, importer: string, cache: ts.ModuleResolutionCache): string | undefined {
  const resolved = ts.resolveModuleName(specifier, importer, OPTIONS, ts.sys, cache).resolvedModule?.resolvedFileName;
  if (resolved?.endsWith('.d.ts')) {
    const script = ['.js', '.mjs', '.cjs'].map((ext) => resolved.replace(/\.d\.ts$/, ext)).find((f) => fs.existsSync(f));
    return script ?? resolved;
  }
  if (resolved) return resolved;
  const asWritten = path.resolve(path.dirname(importer), specifier);
  return fs.existsSync(asWritten) && fs.statSync(asWritten).isFile() ? asWritten : undefined;
}

/** Tarjan's strongly connected components: each component of more than one file, or a file importing itself, is a cycle. */
function cyclesOf(graph: Record<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const dep of graph[file] ?? []) {
      if (!index.has(dep)) {
        visit(dep);
        low.set(file, Math.min(low.get(file)!, low.get(dep)!));
      } else if (onStack.has(dep)) low.set(file, Math.min(low.get(file)!, index.get(dep)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph[file] ?? []).includes(file)) cycles.push(component.reverse());
  };
  for (const file of Object.keys(graph)) if (!index.has(file)) visit(file);
  return cycles;
}

/** The import graph of the code under `dirs` (relative to `root`); imports of packages are left out. */
export function readImportGraph(root: string, dirs: string[]): ImportGraph {
  const cache = ts.createModuleResolutionCache(root, (f) => f, OPTIONS);
  const graph: Record<string, string[]> = {};
  for (const file of dirs.flatMap((dir) => codeFiles(path.join(root, dir)))) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const deps = new Set<string>();
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.') && !path.isAbsolute(fileName)) continue;
      const target = resolve(fileName, file, cache);
      if (target && !target.includes(`${path.sep}node_modules${path.sep}`)) deps.add(path.relative(root, target).split(path.sep).join('/'));
    }
    graph[path.relative(root, file).split(path.sep).join('/')] = [...deps];
  }
  return { graph, cycles: cyclesOf(graph) };
}
