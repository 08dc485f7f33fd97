// Each store a repository over collections runs on: the embedded store in memory, and a fresh
// PostgreSQL database (its collections are tables there). Closed when the test file ends.
import { after } from 'node:test';
import { openJournalStore } from '../../src/adapters/embedded/journalStore.ts';
import { openPgStore } from '../../src/adapters/postgres/pgStore.ts';
import type { Store } from '../../src/domain/ports/store.ts';
import { freshDatabaseUrl } from './postgres.ts';

const opened: Store[] = [];
let closing = false;

export const BACKENDS = ['embedded', 'postgres'] as const;

export async function openStore(backend: (typeof BACKENDS)[number]): Promise<Store> {
  if (!closing) {
    closing = true;
    after(async () => {
      for (const store of opened.splice(0)) await store.close();
    });
  }
  const store = backend === 'postgres' ? await openPgStore({ url: await freshDatabaseUrl() }) : await openJournalStore({ dataDir: null });
  opened.push(store);
  return store;
}
