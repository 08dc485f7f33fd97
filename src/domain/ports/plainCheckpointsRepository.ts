// The checkpoints of the threads run by plain-function graphs, as the plain-state store
// (agent/checkpoints/plainState.ts) keeps them: each checkpoint of a thread, and the thread's head (its
// latest checkpoint). The store decides what a checkpoint holds (a diff against its parent);
// this is where the records are read and what they are written with. Kept in two collections
// of the store (adapters/embedded/collectionPlainCheckpoints.ts), tables on PostgreSQL.
import type { MessageDict } from '../agent/messages/messages.ts';
import type { WriteOp } from './store.ts';

export interface PlainCheckpointRecord {
  thread_id: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  /** How many of the parent's messages start this checkpoint's list. */
  keep: number;
  /** The messages after those. */
  added: MessageDict[];
  /** Links back to the nearest checkpoint that stores all its messages (keep = 0). */
  depth: number;
  /** Every value except `messages`. */
  values: Record<string, unknown>;
  metadata: Record<string, unknown>;
  created_at: string;
}

export interface PlainCheckpointsRepository {
  get(threadId: string, checkpointId: string): Promise<PlainCheckpointRecord | undefined>;
  /** The id of the thread's head checkpoint; undefined when it has none. */
  headId(threadId: string): Promise<string | undefined>;
  /** Every checkpoint of the thread, in no given order. */
  ofThread(threadId: string): Promise<PlainCheckpointRecord[]>;
  /** Every checkpoint of every thread (retention), in no given order. */
  all(): Promise<PlainCheckpointRecord[]>;
  count(threadId: string): Promise<number>;
  /** Merges `metadata` into the checkpoint's metadata atomically; false when there is no such checkpoint. */
  patchMetadata(threadId: string, checkpointId: string, metadata: Record<string, unknown>): Promise<boolean>;
  /** The writes that store a checkpoint, delete one, make one the thread's head, and delete the head. */
  putOp(record: PlainCheckpointRecord): WriteOp;
  deleteOp(threadId: string, checkpointId: string): WriteOp;
  headOp(threadId: string, checkpointId: string): WriteOp;
  deleteHeadOp(threadId: string): WriteOp;
  /** Applies writes atomically (these and others of the store). */
  write(ops: WriteOp[]): Promise<void>;
}
