// Reading a graph's schemas from its TypeScript types costs the compiler seconds of CPU (it
// parses every declaration file of LangGraph and LangChain the module reaches), so an answer
// is kept on disk where build tools keep theirs — `node_modules/.cache/agentplane/schemas`
// beside the project's dependencies — with the size and time of every file the compiler read:
// the module, what it imports, the libraries' declarations and the extractor itself. A kept
// answer is used only while every one of those files is as it was, so an edit anywhere the
// types come from, an upgraded dependency or another agentplane reads the types again. A
// cache that cannot be read or written is no error: the types are read as if it were empty.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A file's identity for the cache: its path, modification time and size. */
type Stamp = [file: string, mtimeMs: number, size: number];

interface Kept<Schemas> {
  inputs: Stamp[];
  /** null: the module has no graph of that name whose types could be read. */
  schemas: Schemas | null;
}

const stampOf = (file: string): Stamp | undefined => {
  try {
    const stat = fs.statSync(file);
    return [file, stat.mtimeMs, stat.size];
  } catch {
    return undefined;
  }
};

/** Where the answer for this graph export is kept, or undefined when the project has no node_modules to keep it in. */
export function keptSchemasFile(file: string, exportName: string, compiler: string): string | undefined {
  for (let at = path.dirname(file); ; at = path.dirname(at)) {
    const modules = path.join(at, 'node_modules');
    if (fs.existsSync(modules)) {
      const key = crypto.createHash('sha256').update(`${file}\0${exportName}\0${compiler}`).digest('hex').slice(0, 32);
      return path.join(modules, '.cache', 'agentplane', 'schemas', `${key}.json`);
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** The kept answer while every file it was read from is unchanged; undefined when there is none. */
export function readKeptSchemas<Schemas>(keptFile: string): Schemas | null | undefined {
  let kept: Kept<Schemas>;
  try {
    kept = JSON.parse(fs.readFileSync(keptFile, 'utf8')) as Kept<Schemas>;
  } catch {
    return undefined;
  }
  if (!Array.isArray(kept.inputs) || kept.inputs.length === 0) return undefined;
  for (const [file, mtimeMs, size] of kept.inputs) {
    const now = stampOf(file);
    if (!now || now[1] !== mtimeMs || now[2] !== size) return undefined;
  }
  return kept.schemas;
}

/** Keeps an answer with the stamps of the files it was read from (written whole, then renamed into place). */
export function keepSchemas<Schemas>(keptFile: string, inputs: string[], schemas: Schemas | null): void {
  const stamps = inputs.map(stampOf).filter((stamp) => stamp !== undefined);
  if (stamps.length !== inputs.length) return;
  const temporary = `${keptFile}.${process.pid}.${crypto.randomUUID()}.tmp`;
  try {
    fs.mkdirSync(path.dirname(keptFile), { recursive: true });
    fs.writeFileSync(temporary, JSON.stringify({ inputs: stamps, schemas } satisfies Kept<Schemas>));
    fs.renameSync(temporary, keptFile);
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}
