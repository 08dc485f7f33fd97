// The long-term memory store (upstream's "store"): JSON documents under a namespace path and
// a key, shared by every thread. The HTTP operations and the graphs (through
// LangGraphMemoryStore) use this one object, so what one writes the other reads.
// Items are kept apart per scope: the caller's tenant when agent-server auth is on, '' when
// the server is open. A tenant's items are bounded in number and in bytes together: every
// change to them is made under the tenant's lock of its store, with the bytes its items take
// written beside them in the same atomic write, so writes at once (across replicas too) are
// counted one after another, and the figure is the store's, whole after a restart.
import { ok, type Outcome } from '../outcome.ts';
import { KeyedLock, type Locks } from '../keyedLock.ts';
import { roomFor, roomForAmount, UNBOUNDED_QUOTAS, type TenantQuotas } from '../tenantQuotas.ts';
import { itemBytes } from './itemBytes.ts';
import type { ItemPlace, MemoryItem, MemoryItemRecord, MemoryItemsRepository } from '../ports/memoryItemsRepository.ts';
import { cosine, textAt, type Embedder } from './embeddings.ts';
import { matchesFilter } from './valueFilter.ts';

export type { MemoryItem };

export interface FoundItem extends MemoryItem {
  score: number | null;
}

export interface TtlSettings {
  /** Reads restart an item's time to live unless the request says otherwise (default true). */
  refresh_on_read?: boolean;
  /** Minutes an item lives when its put names no ttl. */
  default_ttl?: number | null;
  /** How often expired items are removed (default 60 minutes, as upstream). */
  sweep_interval_minutes?: number;
}

export interface PutOptions {
  /** `false` embeds nothing; a list of field paths overrides the index's fields. */
  index?: false | string[] | null;
  ttl?: number | null;
}

export interface SearchOptions {
  prefix?: string[] | null;
  filter?: Record<string, unknown> | null;
  limit?: number;
  offset?: number;
  query?: string | null;
  refreshTtl?: boolean | null;
}

export interface NamespaceOptions {
  prefix?: string[] | null;
  suffix?: string[] | null;
  maxDepth?: number | null;
  limit?: number;
  offset?: number;
}

const MINUTE_MS = 60_000;

export class MemoryStore {
  constructor(
    private readonly items: MemoryItemsRepository,
    private readonly ttl: TtlSettings = {},
    private readonly embedder: Embedder | null = null,
    private readonly now: () => Date = () => new Date(),
    /** How many items, and how many bytes of them, a tenant's scope may hold (domain/tenantQuotas.ts). */
    private readonly quotas: Pick<TenantQuotas, 'storeItems' | 'storeBytes'> = UNBOUNDED_QUOTAS,
    /** Serialises the changes to a scope's items (across replicas when they share the store). */
    private readonly locks: Locks = new KeyedLock(),
  ) {}

  get sweepIntervalMs(): number {
    return (this.ttl.sweep_interval_minutes ?? 60) * MINUTE_MS;
  }

  /** Stores the item; a new one only while the scope is within its quota (nothing stored otherwise). */
  async put(
    scope: string,
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    options: PutOptions = {},
  ): Promise<Outcome<void, 'quota_exceeded'>> {
    const vectors = await this.embed(value, options.index);
    return this.changing(scope, async (held) => {
      const now = this.now();
      const stored = await this.items.get({ scope, namespace, key });
      const existing = stored && !expired(stored, now.toISOString()) ? stored : undefined;
      if (!existing) {
        const room = await roomFor('storeItems', scope, this.quotas, () => this.items.count(scope));
        if (!room.ok) return room;
      }
      // an expired item at the place still counted until now: it is replaced
      const after = held === null ? undefined : held - (stored ? itemBytes(stored) : 0) + itemBytes({ namespace, key, value });
      if (held !== null && after !== undefined) {
        const room = roomForAmount('storeBytes', scope, this.quotas, held, after);
        if (!room.ok) return room;
      }
      const ttlMinutes = options.ttl ?? this.ttl.default_ttl ?? null;
      const record: MemoryItemRecord = {
        scope,
        namespace: [...namespace],
        key,
        value,
        created_at: existing?.created_at ?? now.toISOString(),
        updated_at: now.toISOString(),
        ttl_minutes: ttlMinutes,
        expires_at: ttlMinutes ? new Date(now.getTime() + ttlMinutes * MINUTE_MS).toISOString() : null,
      };
      if (vectors) record.vectors = vectors;
      await this.items.put(record, after);
      return ok(undefined);
    });
  }

  async get(scope: string, namespace: string[], key: string, refreshTtl?: boolean | null): Promise<MemoryItem | null> {
    const record = await this.live({ scope, namespace, key }, this.now());
    if (!record) return null;
    if (this.shouldRefresh(refreshTtl)) await this.refresh([record]);
    return toItem(record);
  }

  async delete(scope: string, namespace: string[], key: string): Promise<void> {
    await this.changing(scope, (held) => this.remove({ scope, namespace, key }, held));
  }

  async search(scope: string, options: SearchOptions = {}): Promise<FoundItem[]> {
    const now = this.now().toISOString();
    const prefix = options.prefix ?? [];
    const matching = await this.items.list(scope, (r) => !expired(r, now) && startsWith(r.namespace, prefix) && matchesFilter(r.value, options.filter));
    const offset = options.offset ?? 0;
    const limit = options.limit ?? 10;
    let ranked: { record: MemoryItemRecord; score: number | null }[];
    if (options.query && this.embedder) {
      const query = await this.embedder.embedQuery(options.query);
      ranked = matching
        .map((record) => ({ record, score: record.vectors?.length ? Math.max(...record.vectors.map((v) => cosine(query, v))) : null }))
        .sort((a, b) => (b.score ?? -Infinity) - (a.score ?? -Infinity));
    } else {
      ranked = matching.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0)).map((record) => ({ record, score: null }));
    }
    const page = ranked.slice(offset, offset + limit);
    if (this.shouldRefresh(options.refreshTtl)) await this.refresh(page.map((p) => p.record));
    return page.map(({ record, score }) => ({ ...toItem(record), score }));
  }

  async listNamespaces(scope: string, options: NamespaceOptions = {}): Promise<string[][]> {
    const now = this.now().toISOString();
    const records = await this.items.list(scope, (r) => !expired(r, now));
    const seen = new Map<string, string[]>();
    for (const { namespace } of records) {
      if (options.prefix?.length && !startsWith(namespace, options.prefix)) continue;
      if (options.suffix?.length && !endsWith(namespace, options.suffix)) continue;
      const truncated = options.maxDepth ? namespace.slice(0, options.maxDepth) : namespace;
      seen.set(JSON.stringify(truncated), truncated);
    }
    const sorted = [...seen.values()].sort((a, b) => compareNamespaces(a, b));
    const offset = options.offset ?? 0;
    return sorted.slice(offset, offset + (options.limit ?? 100));
  }

  /** Removes expired items; returns how many. Runs on a timer (see sweepIntervalMs). */
  async sweep(): Promise<number> {
    const now = this.now().toISOString();
    const gone = await this.items.list(undefined, (r) => expired(r, now));
    let removed = 0;
    for (const record of gone) {
      // read again under the scope's lock: a put may have renewed it since the list
      const still = async (held: number | null) => {
        const current = await this.items.get(record);
        if (!current || !expired(current, now)) return false;
        await this.remove(record, held);
        return true;
      };
      if (await this.changing(record.scope, still)) removed++;
    }
    return removed;
  }

  /**
   * `change` of the scope's items, told the bytes they take (null for the shared space '', no
   * tenant, whose bytes are not kept), under the scope's lock. The figure is the one written
   * with the last change; a scope with none (items stored before it was kept) is summed once.
   */
  private changing<T>(scope: string, change: (held: number | null) => Promise<T>): Promise<T> {
    if (scope === '') return change(null);
    return this.locks.run(`store:${scope}`, async () => {
      const recorded = await this.items.recordedBytes(scope);
      const held = recorded ?? (await this.items.list(scope, () => true)).reduce((sum, item) => sum + itemBytes(item), 0);
      return change(held);
    });
  }

  /** Deletes the item at the place, the scope's bytes less its own (held: as `changing` told). */
  private async remove(place: ItemPlace, held: number | null): Promise<void> {
    if (held === null) return this.items.delete(place);
    const stored = await this.items.get(place);
    if (stored) await this.items.delete(place, held - itemBytes(stored));
  }

  private async live(place: ItemPlace, now: Date): Promise<MemoryItemRecord | undefined> {
    const record = await this.items.get(place);
    return record && !expired(record, now.toISOString()) ? record : undefined;
  }

  private shouldRefresh(requested: boolean | null | undefined): boolean {
    return requested ?? this.ttl.refresh_on_read ?? true;
  }

  private async refresh(records: MemoryItemRecord[]): Promise<void> {
    const now = this.now();
    for (const record of records) {
      if (!record.ttl_minutes) continue;
      const expiresAt = new Date(now.getTime() + record.ttl_minutes * MINUTE_MS).toISOString();
      await this.items.setExpiry(record, expiresAt);
    }
  }

  private async embed(value: Record<string, unknown>, index: PutOptions['index']): Promise<number[][] | undefined> {
    if (!this.embedder || index === false) return undefined;
    const fields = index?.length ? index : this.embedder.fields;
    const texts = fields.map((field) => textAt(value, field)).filter((t): t is string => t !== undefined);
    return texts.length ? this.embedder.embedDocuments(texts) : undefined;
  }
}

function toItem(record: MemoryItemRecord): MemoryItem {
  return { namespace: record.namespace, key: record.key, value: record.value, created_at: record.created_at, updated_at: record.updated_at };
}

const expired = (record: MemoryItemRecord, nowIso: string) => record.expires_at !== null && record.expires_at <= nowIso;

/** `*` matches any one label, as in LangGraph's namespace match conditions. */
const labelMatches = (label: string, pattern: string) => pattern === '*' || pattern === label;

function startsWith(namespace: string[], prefix: string[]): boolean {
  return prefix.length <= namespace.length && prefix.every((p, i) => labelMatches(namespace[i], p));
}

function endsWith(namespace: string[], suffix: string[]): boolean {
  const start = namespace.length - suffix.length;
  return start >= 0 && suffix.every((s, i) => labelMatches(namespace[start + i], s));
}

function compareNamespaces(a: string[], b: string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length - b.length;
}
