// A @langchain/core class as each of its builds gives it: the ESM one agentplane imports, and the
// CommonJS one a graph loaded as CommonJS gets, once something has loaded that build (loading it
// here would cost every process ~80 ms). What agentplane replaces on a LangChain class it
// replaces on both (callbackManagerCopy.ts, generatorStream.ts).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Where `specifier`'s CommonJS build is; null: there is none. */
function commonJsPath(specifier: string): string | null {
  try {
    return require.resolve(specifier);
  } catch {
    return null;
  }
}

/** `esm`, and the CommonJS build's export `name` of `specifier` when that build is loaded and holds another. */
export function bothBuilds<T>(esm: T, specifier: string, name: string): () => T[] {
  const file = commonJsPath(specifier);
  return () => {
    const commonJs = file ? (require.cache[file]?.exports as Record<string, T | undefined> | undefined)?.[name] : undefined;
    return commonJs && commonJs !== esm ? [esm, commonJs] : [esm];
  };
}
