// The long-term memory store's items in a collection of the store, one record per place. A
// place is free text (namespaces and keys), journal and snapshot ids are not: the record's id
// is a fixed-length hash of the place.
import { createHash } from 'node:crypto';
import type { Collection, Store } from '../../domain/ports/store.ts';
import type { ItemPlace, MemoryItemRecord, MemoryItemsRepository } from '../../domain/ports/memoryItemsRepository.ts';

export class CollectionMemoryItems implements MemoryItemsRepository {
  private readonly items: Collection<MemoryItemRecord>;

  constructor(store: Store) {
    this.items = store.collection<MemoryItemRecord>('store_items', { indexes: ['scope'] });
  }

  get(place: ItemPlace): Promise<MemoryItemRecord | undefined> {
    return this.items.get(itemId(place));
  }

  put(item: MemoryItemRecord): Promise<void> {
    return this.items.put(itemId(item), item);
  }

  async delete(place: ItemPlace): Promise<void> {
    await this.items.delete(itemId(place));
  }

  list(scope: string | undefined, keep: (item: MemoryItemRecord) => boolean): Promise<MemoryItemRecord[]> {
    return this.items.list(scope === undefined ? { filter: keep } : { where: { scope }, filter: keep });
  }

  count(scope: string): Promise<number> {
    return this.items.count({ where: { scope } });
  }

  async setExpiry(place: ItemPlace, expiresAt: string): Promise<void> {
    await this.items.update(itemId(place), (current) => ({ ...current, expires_at: expiresAt }));
  }
}

function itemId({ scope, namespace, key }: ItemPlace): string {
  return createHash('sha256')
    .update(JSON.stringify([scope, namespace, key]))
    .digest('base64url');
}
