// The long-term memory store's items as the memory store keeps them: each at its place (a
// scope, a namespace path and a key), read by place or as the items of a scope (or of every
// scope, for the sweep) that a test accepts, with its expiry moved when a read refreshes it.
// Kept in the store's collection (adapters/embedded/collectionMemoryItems.ts).

export interface MemoryItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

/** Where an item is: the caller's scope (its tenant, or ''), the namespace path and the key. */
export interface ItemPlace {
  scope: string;
  namespace: string[];
  key: string;
}

export interface MemoryItemRecord extends MemoryItem {
  scope: string;
  /** Minutes; null keeps the item until it is deleted. */
  ttl_minutes: number | null;
  expires_at: string | null;
  /** One vector per embedded text, when an embeddings index is configured. */
  vectors?: number[][];
}

export interface MemoryItemsRepository {
  /** The item at this place, expired or not. */
  get(place: ItemPlace): Promise<MemoryItemRecord | undefined>;
  /**
   * Stores the item at its place, replacing the one there; with `scopeBytes`, records that the
   * item's scope now takes that many bytes (memory/itemBytes.ts), in the same atomic write.
   */
  put(item: MemoryItemRecord, scopeBytes?: number): Promise<void>;
  /** Deletes the item at the place; with `scopeBytes`, records the scope's bytes as put does. */
  delete(place: ItemPlace, scopeBytes?: number): Promise<void>;
  /** The bytes the scope's items take as last recorded with a put or delete, or undefined when never recorded. */
  recordedBytes(scope: string): Promise<number | undefined>;
  /** The scope's items that `keep` accepts, or every scope's when `scope` is undefined (the sweep). */
  list(scope: string | undefined, keep: (item: MemoryItemRecord) => boolean): Promise<MemoryItemRecord[]>;
  /** How many items the scope holds (expired ones too, until the sweep removes them). */
  count(scope: string): Promise<number>;
  /** Moves the item's expiry (a read refreshing its time to live); nothing when it is gone. */
  setExpiry(place: ItemPlace, expiresAt: string): Promise<void>;
}
