// Builds the memory store from the project file's `store` section (`index`, `ttl`) and the
// background sweep that removes expired items.
import { UNBOUNDED_QUOTAS, type TenantQuotas } from '../tenantQuotas.ts';
import type { Locks } from '../keyedLock.ts';
import type { Logger } from '../ports/logger.ts';
import type { MemoryItemsRepository } from '../ports/memoryItemsRepository.ts';
import { loadEmbedder, type IndexSettings } from './embeddings.ts';
import { MemoryStore, type TtlSettings } from './memoryStore.ts';

export interface StoreSettings {
  index?: IndexSettings;
  ttl?: TtlSettings;
}

export interface MemorySetup {
  store: MemoryStore;
  sweeper: { start(): void; stop(): Promise<void> };
}

export async function createMemoryStore(
  items: MemoryItemsRepository,
  settings: unknown,
  baseDir: string,
  log: Logger,
  quotas: Pick<TenantQuotas, 'storeItems' | 'storeBytes'> = UNBOUNDED_QUOTAS,
  locks?: Locks,
): Promise<MemorySetup> {
  const { index, ttl } = (settings ?? {}) as StoreSettings;
  const embedder = index ? await loadEmbedder(index, baseDir) : null;
  const memory = new MemoryStore(items, ttl ?? {}, embedder, undefined, quotas, locks);
  let timer: NodeJS.Timeout | undefined;
  const sweeper = {
    start() {
      timer = setInterval(() => {
        memory.sweep().then(
          (removed) => removed && log.info('expired store items removed', { removed }),
          (err: Error) => log.warn('store sweep failed; retried at the next interval', { error: err.message }),
        );
      }, memory.sweepIntervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
    },
  };
  return { store: memory, sweeper };
}
