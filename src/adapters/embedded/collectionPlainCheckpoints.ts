// The plain-function graphs' checkpoints in two collections of the store: the checkpoints,
// id `<thread id>:<checkpoint id>`, and one head per thread naming its latest. The same
// collections are tables on PostgreSQL (pgTables.ts), and a run worker's remote store
// (run-workers/remoteStore.ts) reaches them on the main thread, so nothing here asks for a
// filter function.
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { PlainCheckpointRecord, PlainCheckpointsRepository } from '../../domain/ports/plainCheckpointsRepository.ts';

interface HeadRecord {
  thread_id: string;
  checkpoint_id: string;
}

/** The id of a thread's checkpoint record (a head names its checkpoint by `checkpoint_id`). */
const rowId = (threadId: string, checkpointId: string) => `${threadId}:${checkpointId}`;

export class CollectionPlainCheckpoints implements PlainCheckpointsRepository {
  private readonly checkpoints: Collection<PlainCheckpointRecord>;
  private readonly heads: Collection<HeadRecord>;

  constructor(private readonly store: Store) {
    this.checkpoints = store.collection<PlainCheckpointRecord>('plain_checkpoints', { indexes: ['thread_id'] });
    this.heads = store.collection<HeadRecord>('plain_heads');
  }

  get(threadId: string, checkpointId: string): Promise<PlainCheckpointRecord | undefined> {
    return this.checkpoints.get(rowId(threadId, checkpointId));
  }

  async headId(threadId: string): Promise<string | undefined> {
    return (await this.heads.get(threadId))?.checkpoint_id;
  }

  ofThread(threadId: string): Promise<PlainCheckpointRecord[]> {
    return this.checkpoints.list({ where: { thread_id: threadId } });
  }

  all(): Promise<PlainCheckpointRecord[]> {
    return this.checkpoints.list();
  }

  count(threadId: string): Promise<number> {
    return this.checkpoints.count({ where: { thread_id: threadId } });
  }

  async patchMetadata(threadId: string, checkpointId: string, metadata: Record<string, unknown>): Promise<boolean> {
    const updated = await this.checkpoints.update(rowId(threadId, checkpointId), (r) => ({ ...r, metadata: { ...r.metadata, ...metadata } }));
    return updated !== undefined;
  }

  putOp(record: PlainCheckpointRecord): WriteOp {
    return { collection: this.checkpoints.name, id: rowId(record.thread_id, record.checkpoint_id), value: record };
  }

  deleteOp(threadId: string, checkpointId: string): WriteOp {
    return { collection: this.checkpoints.name, id: rowId(threadId, checkpointId), delete: true };
  }

  headOp(threadId: string, checkpointId: string): WriteOp {
    return { collection: this.heads.name, id: threadId, value: { thread_id: threadId, checkpoint_id: checkpointId } };
  }

  deleteHeadOp(threadId: string): WriteOp {
    return { collection: this.heads.name, id: threadId, delete: true };
  }

  write(ops: WriteOp[]): Promise<void> {
    return this.store.write(ops);
  }
}
