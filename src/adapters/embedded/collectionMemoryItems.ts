// The long-term memory store's items in a collection of the store, one record per place. A
// place is free text (namespaces and keys), journal and snapshot ids are not: the record's id
// is a fixed-length hash of the place.
import { createHash } from 'node:crypto';
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { ItemPlace, MemoryItemRecord, MemoryItemsRepository } from '../../domain/ports/memoryItemsRepository.ts';

/** What a scope's items take, kept beside them and written with each change to them. */
interface ScopeUsage {
  scope: string;
  bytes: number;
}

export class CollectionMemoryItems implements MemoryItemsRepository {
  private readonly items: Collection<MemoryItemRecord>;
  private readonly usage: Collection<ScopeUsage>;

  constructor(private readonly store: Store) {
    this.items = store.collection<MemoryItemRecord>('store_items', { indexes: ['scope'] });
    this.usage = store.collection<ScopeUsage>('store_usage');
  }

  get(place: ItemPlace): Promise<MemoryItemRecord | undefined> {
    return this.items.get(itemId(place));
  }

  put(item: MemoryItemRecord, scopeBytes?: number): Promise<void> {
    if (scopeBytes === undefined) return this.items.put(itemId(item), item);
    return this.store.write([{ collection: this.items.name, id: itemId(item), value: item }, this.usageWrite(item.scope, scopeBytes)]);
  }

  async delete(place: ItemPlace, scopeBytes?: number): Promise<void> {
    if (scopeBytes === undefined) await this.items.delete(itemId(place));
    else await this.store.write([{ collection: this.items.name, id: itemId(place), delete: true }, this.usageWrite(place.scope, scopeBytes)]);
  }

  async recordedBytes(scope: string): Promise<number | undefined> {
    return (await this.usage.get(scopeId(scope)))?.bytes;
  }

  private usageWrite(scope: string, bytes: number): WriteOp {
    return { collection: this.usage.name, id: scopeId(scope), value: { scope, bytes } satisfies ScopeUsage };
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

/** A scope is free text (a tenant's id): its record's id is a fixed-length hash of it. */
function scopeId(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url');
}
