// Semantic search of the memory store: `store.index` in the project file names an embeddings
// model and the fields of an item's value to embed, as in upstream's langgraph.json:
//   {"store": {"index": {"embed": "./src/embed.ts:embeddings", "dims": 3, "fields": ["text"]}}}
// `embed` is a module path (relative to the project file) whose export is a LangChain
// `Embeddings` object (embedDocuments/embedQuery) or a function `(texts) => number[][]`.
// Upstream's "provider:model" strings need a hosted model and network access; they are
// refused at start with a message saying so.
import path from 'node:path';
import { importProjectModule } from '../../shared/projectModule.ts';

export interface IndexSettings {
  embed: string;
  dims: number;
  fields?: string[];
}

export interface Embedder {
  dims: number;
  fields: string[];
  embedDocuments(texts: string[]): Promise<number[][]>;
  embedQuery(text: string): Promise<number[]>;
}

type EmbedFunction = (texts: string[]) => Promise<number[][]> | number[][];

export async function loadEmbedder(settings: IndexSettings, baseDir: string): Promise<Embedder> {
  const where = 'store.index.embed';
  if (typeof settings.embed !== 'string' || !settings.embed) throw new Error(`${where}: expected "./module.ts:export", got ${JSON.stringify(settings.embed)}`);
  if (!Number.isInteger(settings.dims) || settings.dims < 1)
    throw new Error(`store.index.dims: expected a positive integer, got ${JSON.stringify(settings.dims)}`);
  const at = settings.embed.lastIndexOf(':');
  const isPath = settings.embed.startsWith('.') || settings.embed.startsWith('/');
  if (!isPath) {
    throw new Error(
      `${where}: "${settings.embed}" names a hosted embeddings model; agentplane loads embeddings from the project instead ("./path/to/module.ts:export" exporting a LangChain Embeddings object or a function of texts)`,
    );
  }
  const file = path.resolve(baseDir, at > 1 ? settings.embed.slice(0, at) : settings.embed);
  const exportName = at > 1 ? settings.embed.slice(at + 1) : 'default';
  // as the project's other modules load: a TypeScript one registers tsx when agentplane runs
  // compiled (before, it loaded only once a TypeScript graph had registered it)
  const module = await importProjectModule(file);
  const value = module[exportName] as { embedDocuments?: EmbedFunction; embedQuery?: (t: string) => Promise<number[]> } | EmbedFunction | undefined;
  const fields = settings.fields?.length ? settings.fields : ['$'];
  if (typeof value === 'function') {
    const fn = value as EmbedFunction;
    return { dims: settings.dims, fields, embedDocuments: async (texts) => fn(texts), embedQuery: async (text) => (await fn([text]))[0] };
  }
  if (value && typeof value.embedDocuments === 'function' && typeof value.embedQuery === 'function') {
    const embeddings = value as { embedDocuments: EmbedFunction; embedQuery: (t: string) => Promise<number[]> };
    return {
      dims: settings.dims,
      fields,
      embedDocuments: async (texts) => embeddings.embedDocuments(texts),
      embedQuery: (text) => embeddings.embedQuery(text),
    };
  }
  throw new Error(`${where}: ${file}:${exportName} is neither an Embeddings object nor a function of texts`);
}

/** The text of one field path (`$` is the whole value; `a.b` a nested key), or none. */
export function textAt(value: Record<string, unknown>, field: string): string | undefined {
  if (field === '$') return JSON.stringify(value);
  let current: unknown = value;
  for (const part of field.split('.')) {
    if (!current || typeof current !== 'object' || !Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  if (current === undefined || current === null) return undefined;
  return typeof current === 'string' ? current : JSON.stringify(current);
}

export function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}
