// Each store a repository over collections runs on: the embedded store in memory, and a fresh
// PostgreSQL database (its collections are tables there). Closed when the test file ends.
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { openPgStore } from '../../src/adapters/postgres/pgStore.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import { migratedDatabaseUrl } from './postgres.ts';
import { tempDir } from './tempDirs.ts';
import { afterEachFile } from './fileEnd.ts';

const opened: Store[] = [];
// registered as the file loads, so it is the file's (the root's) hook: registered by the first
// openStore, inside a test, it closed only what was open when that test ended, and the
// PostgreSQL pools opened after held the process; each file's, also where files share a process
afterEachFile(async () => {
  for (const store of opened.splice(0)) await store.close();
});

export const BACKENDS = ['embedded', 'postgres'] as const;

export async function openStore(backend: (typeof BACKENDS)[number]): Promise<Store> {
  const store = backend === 'postgres' ? await openPgStore({ url: await migratedDatabaseUrl() }) : await openJournalStore({ dataDir: null });
  opened.push(store);
  return store;
}

/**
 * The embedded store as a server runs it, on a data directory, with a cache of paged values too
 * small to hold any: every read of a checkpoint, value or pending write is read from disk.
 */
export async function openPagedStore(): Promise<Store> {
  const store = await openJournalStore({ dataDir: tempDir('paged-store-'), cacheBytes: 1 });
  opened.push(store);
  return store;
}
