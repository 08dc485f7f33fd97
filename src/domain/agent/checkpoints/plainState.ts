// State of threads run by plain-function graphs, kept as a chain of checkpoints so that
// history, forking and time travel work for them as for LangGraph graphs. A checkpoint
// stores only what changed: how many of its parent's messages it keeps as a prefix, and
// the messages after that. A run that appends therefore writes a few small records
// however long the conversation is. Every SNAPSHOT_EVERY links a checkpoint stores all
// its messages, so reading any state walks a bounded number of records; materialised
// message lists of recent checkpoints are cached.
import type { WriteOp } from '../../ports/store.ts';
import type { PlainCheckpointRecord, PlainCheckpointsRepository } from '../../ports/plainCheckpointsRepository.ts';

// what a run is handed of its thread names it by the store that reads it (runContext.ts)
export type { PlainCheckpointRecord };
import type { MessageDict } from '../messages/messages.ts';

export interface PlainSnapshot {
  values: Record<string, unknown> & { messages: MessageDict[] };
  checkpointId: string;
  parentCheckpointId: string | null;
  metadata: Record<string, unknown>;
  step: number;
  createdAt: string;
  depth: number;
}

export interface CheckpointMeta {
  checkpointId: string;
  createdAt: string;
  metadata: Record<string, unknown>;
}

const SNAPSHOT_EVERY = 32;
const CACHE_SIZE = 512;

const byNewest = (a: PlainCheckpointRecord, b: PlainCheckpointRecord) => (a.checkpoint_id < b.checkpoint_id ? 1 : a.checkpoint_id > b.checkpoint_id ? -1 : 0);

export class PlainStateStore {
  /** checkpoint id → its messages; insertion order is recency (a small LRU). */
  private readonly cache = new Map<string, MessageDict[]>();
  /** Heads read for a run before it was handed over (knowHead), by thread; null: the thread has none. */
  private readonly knownHeads = new Map<string, PlainCheckpointRecord | null>();

  constructor(private readonly checkpoints: PlainCheckpointsRepository) {}

  /** The thread's latest state, or the state at `checkpointId`; undefined when there is none. */
  async read(threadId: string, checkpointId?: string): Promise<PlainSnapshot | undefined> {
    const record = checkpointId !== undefined ? (checkpointId ? await this.checkpoints.get(threadId, checkpointId) : undefined) : await this.headOf(threadId);
    return record && this.snapshot(record);
  }

  /** The record of the thread's latest checkpoint as stored (null: none), read with two gets. */
  async headRecord(threadId: string): Promise<PlainCheckpointRecord | null> {
    const id = await this.checkpoints.headId(threadId);
    return (id && (await this.checkpoints.get(threadId, id))) || null;
  }

  /**
   * Tells the store the thread's head as it was just read elsewhere (a run worker is sent it
   * with its run): the next read of the thread's latest state uses it instead of reading.
   * For a run that writes no plain state while it runs (a plain run's ops are written after
   * it ends); `forgetHead` when the run ends, used or not.
   */
  knowHead(threadId: string, record: PlainCheckpointRecord | null): void {
    this.knownHeads.set(threadId, record);
  }

  forgetHead(threadId: string): void {
    this.knownHeads.delete(threadId);
  }

  private async headOf(threadId: string): Promise<PlainCheckpointRecord | undefined> {
    const known = this.knownHeads.get(threadId);
    if (known !== undefined) {
      this.knownHeads.delete(threadId);
      return known ?? undefined;
    }
    return (await this.headRecord(threadId)) ?? undefined;
  }

  /** States newest first, filtered like the upstream checkpointers' `list`. */
  async history(
    threadId: string,
    options: { limit: number; before?: string; metadata?: Record<string, unknown>; createdBefore?: string },
  ): Promise<PlainSnapshot[]> {
    const records = (await this.checkpoints.ofThread(threadId)).sort(byNewest);
    const out: PlainSnapshot[] = [];
    for (const record of records) {
      if (out.length >= options.limit) break;
      if (options.before && record.checkpoint_id >= options.before) continue;
      // a page of a history merged with the LangGraph chain (threadState.ts) ends at a time
      if (options.createdBefore && Date.parse(record.created_at) >= Date.parse(options.createdBefore)) continue;
      if (options.metadata && !Object.entries(options.metadata).every(([k, v]) => JSON.stringify(record.metadata[k]) === JSON.stringify(v))) continue;
      out.push(await this.snapshot(record));
    }
    return out;
  }

  /**
   * The writes that add a checkpoint holding `values`, child of `parent` (the base the new
   * values were computed from, the head or a fork point); it becomes the thread's head.
   * The caller applies the writes atomically, usually with other ones.
   */
  commitOps(
    threadId: string,
    parent: PlainSnapshot | undefined,
    values: Record<string, unknown>,
    meta: CheckpointMeta,
  ): { ops: WriteOp[]; snapshot: PlainSnapshot } {
    const { messages = [], ...rest } = values as { messages?: MessageDict[] };
    const old = parent?.values.messages ?? [];
    let keep = 0;
    while (keep < old.length && keep < messages.length && sameMessage(old[keep], messages[keep])) keep += 1;
    let depth = keep === 0 || !parent ? 0 : parent.depth + 1;
    if (depth >= SNAPSHOT_EVERY) {
      keep = 0;
      depth = 0;
    }
    const record: PlainCheckpointRecord = {
      thread_id: threadId,
      checkpoint_id: meta.checkpointId,
      parent_checkpoint_id: parent?.checkpointId ?? null,
      keep,
      added: messages.slice(keep),
      depth,
      values: rest,
      metadata: meta.metadata,
      created_at: meta.createdAt,
    };
    this.remember(meta.checkpointId, messages);
    const ops: WriteOp[] = [this.checkpoints.putOp(record), this.checkpoints.headOp(threadId, meta.checkpointId)];
    return { ops, snapshot: this.toSnapshot(record, messages) };
  }

  async deleteOps(threadId: string): Promise<WriteOp[]> {
    const records = await this.checkpoints.ofThread(threadId);
    const ops: WriteOp[] = records.map((r) => this.checkpoints.deleteOp(threadId, r.checkpoint_id));
    if ((await this.checkpoints.headId(threadId)) !== undefined) ops.push(this.checkpoints.deleteHeadOp(threadId));
    return ops;
  }

  /** Writes that give `toThread` the same checkpoints (and head) as `fromThread`. */
  async copyOps(fromThread: string, toThread: string): Promise<WriteOp[]> {
    const head = await this.checkpoints.headId(fromThread);
    if (head === undefined) return [];
    const records = await this.checkpoints.ofThread(fromThread);
    return [...records.map((r) => this.checkpoints.putOp({ ...r, thread_id: toThread })), this.checkpoints.headOp(toThread, head)];
  }

  /** Deletes every checkpoint but the head, which then stores all its messages. */
  async keepLatest(threadId: string): Promise<void> {
    const head = await this.read(threadId);
    if (!head) return;
    const records = await this.checkpoints.ofThread(threadId);
    const ops: WriteOp[] = records.filter((r) => r.checkpoint_id !== head.checkpointId).map((r) => this.checkpoints.deleteOp(threadId, r.checkpoint_id));
    const current = await this.checkpoints.get(threadId, head.checkpointId);
    if (current && current.keep > 0) ops.push(this.checkpoints.putOp({ ...current, keep: 0, added: head.values.messages, depth: 0 }));
    if (ops.length) await this.checkpoints.write(ops);
  }

  /**
   * Retention: deletes checkpoints created before `cutoffIso`, except each thread's head.
   * A survivor that stored its messages as a suffix of a deleted parent is rewritten to
   * store them all first, so every remaining state still reads back whole.
   */
  async expireBefore(cutoffIso: string): Promise<number> {
    const byThread = new Map<string, PlainCheckpointRecord[]>();
    for (const r of await this.checkpoints.all()) {
      const group = byThread.get(r.thread_id);
      if (group) group.push(r);
      else byThread.set(r.thread_id, [r]);
    }
    let removed = 0;
    for (const [threadId, records] of byThread) {
      const head = await this.checkpoints.headId(threadId);
      const doomed = new Set(records.filter((r) => r.checkpoint_id !== head && r.created_at < cutoffIso).map((r) => r.checkpoint_id));
      if (doomed.size === 0) continue;
      const ops: WriteOp[] = [];
      for (const r of records) {
        if (doomed.has(r.checkpoint_id)) continue;
        if (r.keep > 0 && r.parent_checkpoint_id && doomed.has(r.parent_checkpoint_id)) {
          ops.push(this.checkpoints.putOp({ ...r, keep: 0, added: await this.messagesOf(r), depth: 0 }));
        }
      }
      for (const id of doomed) {
        ops.push(this.checkpoints.deleteOp(threadId, id));
        this.cache.delete(id);
      }
      await this.checkpoints.write(ops);
      removed += doomed.size;
    }
    return removed;
  }

  /** Merges `metadata` into the head checkpoint's metadata; false when there is no head. */
  async patchHeadMetadata(threadId: string, metadata: Record<string, unknown>): Promise<boolean> {
    const head = await this.checkpoints.headId(threadId);
    return head !== undefined && this.checkpoints.patchMetadata(threadId, head, metadata);
  }

  /** How many checkpoints the store holds for the thread (retention tests and benchmarks). */
  async count(threadId: string): Promise<number> {
    return this.checkpoints.count(threadId);
  }

  private async snapshot(record: PlainCheckpointRecord): Promise<PlainSnapshot> {
    return this.toSnapshot(record, await this.messagesOf(record));
  }

  private toSnapshot(record: PlainCheckpointRecord, messages: MessageDict[]): PlainSnapshot {
    return {
      values: { ...record.values, messages },
      checkpointId: record.checkpoint_id,
      parentCheckpointId: record.parent_checkpoint_id,
      metadata: record.metadata,
      step: typeof record.metadata.step === 'number' ? record.metadata.step : 0,
      createdAt: record.created_at,
      depth: record.depth,
    };
  }

  /** Walks back to a cached or self-contained checkpoint, then replays forward. */
  private async messagesOf(record: PlainCheckpointRecord): Promise<MessageDict[]> {
    const chain: PlainCheckpointRecord[] = [];
    let base: MessageDict[] = [];
    let at: PlainCheckpointRecord | undefined = record;
    while (at) {
      const cached = this.cache.get(at.checkpoint_id);
      if (cached) {
        base = cached;
        break;
      }
      chain.push(at);
      if (at.keep === 0 || !at.parent_checkpoint_id) break;
      at = await this.checkpoints.get(at.thread_id, at.parent_checkpoint_id);
    }
    let messages = base;
    for (const link of chain.reverse()) {
      messages = link.keep === 0 ? link.added : [...messages.slice(0, link.keep), ...link.added];
      this.remember(link.checkpoint_id, messages);
    }
    return messages;
  }

  private remember(checkpointId: string, messages: MessageDict[]): void {
    this.cache.delete(checkpointId);
    this.cache.set(checkpointId, messages);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
  }
}

/** Messages are immutable once stored, so the same object (or the same JSON) is the same message. */
function sameMessage(a: MessageDict, b: MessageDict): boolean {
  return a === b || (a.id === b.id && JSON.stringify(a) === JSON.stringify(b));
}
