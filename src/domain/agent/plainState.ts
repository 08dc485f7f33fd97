// State of threads run by plain-function graphs. The checkpoint is simply the thread's
// values; messages are stored one record each so that a run appends a few small records
// instead of rewriting the whole conversation (a write costs the same on a long thread).
import type { Collection, Store, WriteOp } from '../../runtime/store/types.ts';
import type { MessageDict } from './messages.ts';

interface ValuesRecord {
  thread_id: string;
  /** Every value except `messages`. */
  values: Record<string, unknown>;
  next_seq: number;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  run_id: string;
  step: number;
  created_at: string;
}

interface MessageRecord {
  thread_id: string;
  seq: number;
  message: MessageDict;
}

export interface PlainSnapshot {
  values: Record<string, unknown> & { messages: MessageDict[] };
  checkpointId: string;
  parentCheckpointId: string | null;
  runId: string;
  step: number;
  createdAt: string;
  /** Where each message is stored, by message id. */
  seqById: Map<string, number>;
  nextSeq: number;
}

export class PlainStateStore {
  private readonly valuesCol: Collection<ValuesRecord>;
  private readonly messagesCol: Collection<MessageRecord>;

  constructor(store: Store) {
    this.valuesCol = store.collection<ValuesRecord>('thread_values');
    this.messagesCol = store.collection<MessageRecord>('thread_messages', { indexes: ['thread_id'] });
  }

  async read(threadId: string): Promise<PlainSnapshot | undefined> {
    const record = await this.valuesCol.get(threadId);
    if (!record) return undefined;
    const rows = (await this.messagesCol.list({ where: { thread_id: threadId } })).sort((a, b) => a.seq - b.seq);
    return {
      values: { ...record.values, messages: rows.map((r) => r.message) },
      checkpointId: record.checkpoint_id,
      parentCheckpointId: record.parent_checkpoint_id,
      runId: record.run_id,
      step: record.step,
      createdAt: record.created_at,
      seqById: new Map(rows.map((r) => [r.message.id, r.seq])),
      nextSeq: record.next_seq,
    };
  }

  /** The writes that replace `before` by `values`; the caller applies them atomically. */
  commitOps(threadId: string, before: PlainSnapshot | undefined, values: Record<string, unknown>, meta: { checkpointId: string; runId: string; createdAt: string }): WriteOp[] {
    const { messages = [], ...rest } = values as { messages?: MessageDict[] };
    const ops: WriteOp[] = [];
    const old = before?.values.messages ?? [];
    // runs usually append: skip the unchanged prefix without building maps over it
    let same = 0;
    while (same < old.length && same < messages.length && old[same] === messages[same]) same += 1;
    const previous = new Map(old.slice(same).map((m) => [m.id, m]));
    let nextSeq = before?.nextSeq ?? 0;
    const kept = new Set<string>();
    for (const message of messages.slice(same)) {
      kept.add(message.id);
      const seq = before?.seqById.get(message.id);
      if (seq !== undefined && previous.get(message.id) === message) continue;
      const at = seq ?? nextSeq++;
      ops.push({ collection: this.messagesCol.name, id: rowId(threadId, at), value: { thread_id: threadId, seq: at, message } });
    }
    for (const message of previous.values()) {
      if (!kept.has(message.id)) ops.push({ collection: this.messagesCol.name, id: rowId(threadId, before!.seqById.get(message.id)!), delete: true });
    }
    const record: ValuesRecord = {
      thread_id: threadId,
      values: rest,
      next_seq: nextSeq,
      checkpoint_id: meta.checkpointId,
      parent_checkpoint_id: before?.checkpointId ?? null,
      run_id: meta.runId,
      step: (before?.step ?? 0) + 1,
      created_at: meta.createdAt,
    };
    ops.push({ collection: this.valuesCol.name, id: threadId, value: record });
    return ops;
  }

  async deleteOps(threadId: string): Promise<WriteOp[]> {
    const rows = await this.messagesCol.list({ where: { thread_id: threadId } });
    const ops: WriteOp[] = rows.map((r) => ({ collection: this.messagesCol.name, id: rowId(threadId, r.seq), delete: true }));
    if (await this.valuesCol.get(threadId)) ops.push({ collection: this.valuesCol.name, id: threadId, delete: true });
    return ops;
  }
}

const rowId = (threadId: string, seq: number) => `${threadId}:${seq}`;
