// Schemas from a graph module's TypeScript types, for graphs that declare no StateSchema or
// Zod schema (Annotation graphs), as the upstream JS server extracts them: in a worker thread
// (never on the request loop), from the source text alone when it tells (milliseconds:
// workers/staticSchemaSyntax.ts), else with the TypeScript type checker (seconds of
// synchronous work; one worker for consecutive readings, which parses an unchanged file once),
// bounded by a timeout; each module's answer is kept in memory while the file is unchanged,
// and on disk while every file it was read from is (staticSchemaCache.ts). The compiler is
// the project's own `typescript`, else agentplane's when installed; without one, or when it
// fails, there is no answer (the caller falls back).
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { GraphTypeReader, TypedSchemas } from '../../domain/ports/graphTypeReader.ts';
import { keepSchemas, keptSchemasFile, readKeptSchemas } from './staticSchemaCache.ts';

export type { TypedSchemas };

/** The reader the domain asks through its port (ports/graphTypeReader.ts). */
export const staticSchemaReader: GraphTypeReader = {
  read: (file, exportName) => staticSchemas(file, exportName),
  warm: (graphs) => warmStaticSchemas(graphs),
};

const SOURCES = import.meta.url.endsWith('.ts');
const ENTRY = new URL(SOURCES ? './staticSchemaEntry.mjs' : './staticSchemaWorker.js', import.meta.url);
/** The extractor's own code: a kept answer is read again when it changes. */
const EXTRACTOR = ['staticSchemaWorker', 'staticSchemaSyntax', 'schemaShapes'].map((name) =>
  fileURLToPath(new URL(`./${name}.${SOURCES ? 'ts' : 'js'}`, import.meta.url)),
);
const TIMEOUT_MS = 60_000;
const cache = new Map<string, Promise<TypedSchemas | undefined>>();

/** How many answers each reader gave in this process: the source text alone, or the type checker. */
export const schemaReadings = { syntax: 0, checker: 0 };

/** How many schema workers are alive (each holds a compiler's heap). */
export const schemaWorkers = (): number => readers.size;

/** Every graph module asked about (or warmed): a worker's one Program covers them all. */
const roots = new Set<string>();

/**
 * Reads the types of a project's graphs in the background (soon after the server listens, and
 * after a dev reload), so the first request for their schemas finds them read: one Program for
 * all, in the worker thread, which does not keep the process up meanwhile. Resolves once they
 * are read and a worker only the warm-up used has ended (nothing of it is left to fall in a run).
 */
export async function warmStaticSchemas(graphs: { source?: string; exportName?: string }[]): Promise<void> {
  for (const { source } of graphs) if (source && /\.(c|m)?tsx?$/.test(source)) roots.add(source);
  await Promise.all(graphs.map(({ source, exportName }) => staticSchemas(source, exportName, { background: true }).catch(() => undefined)));
  await Promise.all(ending);
}

export function staticSchemas(
  file: string | undefined,
  exportName: string | undefined,
  { background = false, checker = false }: { background?: boolean; checker?: boolean } = {},
): Promise<TypedSchemas | undefined> {
  if (!file || !exportName || !/\.(c|m)?tsx?$/.test(file)) return Promise.resolve(undefined);
  let mtime = 0;
  try {
    mtime = fs.statSync(file).mtimeMs;
  } catch {
    return Promise.resolve(undefined);
  }
  const key = `${file}:${exportName}:${mtime}:${checker}`;
  let answer = cache.get(key);
  if (!answer) {
    roots.add(file);
    answer = extract(file, exportName, background, checker);
    cache.set(key, answer);
  } else if (!background) {
    // a request joins a reading begun in the background: from now it keeps the process up
    for (const reader of readers.values())
      if (reader.pending.size > 0) {
        reader.held = reader.asked = true;
        reader.worker.ref();
      }
  }
  return answer;
}

async function extract(file: string, exportName: string, background: boolean, checker: boolean): Promise<TypedSchemas | undefined> {
  const typescript = compilerFor(file);
  if (!typescript) return undefined;
  const keptFile = keptSchemasFile(file, exportName, checker ? `${typescript}#checker` : typescript);
  const kept = keptFile ? readKeptSchemas<TypedSchemas>(keptFile) : undefined;
  if (kept !== undefined) return kept ?? undefined;
  const before = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs;
  const answer = await readTypes({ file, exportName, checker }, typescript, background);
  // an answer read while the module was being edited is used once, never kept
  if (answer && keptFile && fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs === before)
    keepSchemas(keptFile, [...answer.inputs, ...EXTRACTOR], answer.schemas);
  return answer?.schemas ?? undefined;
}

type Answer = { schemas: TypedSchemas | null; inputs: string[] };
type Reading = { schemas: TypedSchemas | null; inputs: string[]; reader: keyof typeof schemaReadings; id: number; error?: string };

/** A schema worker for one compiler and the jobs it has in hand. */
interface Reader {
  worker: Worker;
  pending: Map<number, (answer: Answer | undefined) => void>;
  idle?: NodeJS.Timeout;
  /** A request waits on it: it keeps the process up. */
  held?: boolean;
  /** A request has used it (not only the warm-up): it is kept IDLE_MS for the requests that follow. */
  asked?: boolean;
}

/**
 * One worker per compiler, kept while jobs come and IDLE_MS after a request's reading: it parses
 * unchanged files once. A worker only the warm-up used ends at its last answer: its answers are
 * kept, and its compiler's heap (~60-100 MB of RSS) is not the idle server's; ended at once, its
 * end is part of the warm-up, not a moment later where a run may be (issue 89).
 */
const readers = new Map<string, Reader>();
const IDLE_MS = 15_000;
/** Workers being terminated, until they have ended. */
const ending = new Set<Promise<unknown>>();
let nextJob = 0;

/** The compiler's answer in a worker thread, with every file it read; undefined when it failed or timed out. */
function readTypes(job: { file: string; exportName: string; checker: boolean }, typescript: string, background: boolean): Promise<Answer | undefined> {
  const reader = readerFor(typescript);
  const id = ++nextJob;
  return new Promise((resolve) => {
    // a compiler stuck on one module ends its worker: the jobs in hand get no answer
    const timer = setTimeout(() => retire(typescript, reader), TIMEOUT_MS);
    if (background) timer.unref();
    reader.pending.set(id, (answer) => {
      clearTimeout(timer);
      resolve(answer);
    });
    clearTimeout(reader.idle);
    // a request's reading keeps the process up until answered; a warming one does not
    if (!background) reader.held = reader.asked = true;
    reader.worker[reader.held ? 'ref' : 'unref']();
    reader.worker.postMessage({ id, ...job, roots: [...roots] });
  });
}

function readerFor(typescript: string): Reader {
  const existing = readers.get(typescript);
  if (existing) return existing;
  const reader: Reader = { worker: new Worker(ENTRY, { workerData: { typescript } }), pending: new Map() };
  readers.set(typescript, reader);
  reader.worker.on('message', (message: Reading) => {
    const answer = reader.pending.get(message.id);
    reader.pending.delete(message.id);
    if (message.error === undefined) schemaReadings[message.reader]++;
    answer?.(message.error === undefined ? { schemas: message.schemas, inputs: message.inputs } : undefined);
    if (reader.pending.size === 0) {
      // idle: it no longer keeps the process up, and ends after a while
      reader.held = false;
      reader.worker.unref();
      if (reader.asked) reader.idle = setTimeout(() => retire(typescript, reader), IDLE_MS).unref();
      else retire(typescript, reader);
    }
  });
  reader.worker.once('error', () => retire(typescript, reader));
  reader.worker.once('exit', () => retire(typescript, reader));
  return reader;
}

/** Ends a reader: the jobs it had in hand get no answer, the next job starts a fresh worker. */
function retire(typescript: string, reader: Reader): void {
  if (readers.get(typescript) === reader) readers.delete(typescript);
  clearTimeout(reader.idle);
  for (const answer of reader.pending.values()) answer(undefined);
  reader.pending.clear();
  const ended = reader.worker.terminate().catch(() => undefined);
  ending.add(ended);
  void ended.then(() => ending.delete(ended));
}

/** The URL of the TypeScript compiler the project resolves (else agentplane's, if any). */
function compilerFor(file: string): string | undefined {
  for (let at = path.dirname(file); ; at = path.dirname(at)) {
    const main = path.join(at, 'node_modules', 'typescript', 'lib', 'typescript.js');
    if (fs.existsSync(main)) return pathToFileURL(main).href;
    if (path.dirname(at) === at) break;
  }
  try {
    return import.meta.resolve('typescript');
  } catch {
    return undefined;
  }
}
