// LangGraph's checkpoints and their pending writes as the checkpoint saver (agent/checkpointer.ts)
// keeps them: serialised, keyed by thread, namespace and checkpoint id (`thread_ns` and
// `cp_key`, joined by the saver's separator). The saver decides what is known, held and
// written when; this is where the records are read and what they are written with. Kept in
// two collections of the store (adapters/embedded/collectionCheckpoints.ts), tables on
// PostgreSQL, and reached from a run worker through its remote store.
import type { Serialised } from '../agent/checkpointText.ts';
import type { WriteOp } from './store.ts';

export interface CheckpointRecord {
  thread_id: string;
  /** The thread and namespace, joined. */
  thread_ns: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id?: string;
  run_id?: string;
  checkpoint: Serialised;
  metadata: Serialised;
}

export interface WriteRecord {
  thread_id: string;
  /** The thread, namespace and checkpoint the write was made against, joined. */
  cp_key: string;
  task_id: string;
  channel: string;
  idx: number;
  value: Serialised;
}

/** A checkpoint as stored, with the pending writes made against it. */
export interface StoredHead {
  record: CheckpointRecord;
  writes: WriteRecord[];
}

/** Which of a thread's checkpoints (newest first, by id: checkpoint ids are time-ordered, when `newestFirst`). */
export interface CheckpointQuery {
  threadId: string;
  /** One namespace's (`thread_ns`); every namespace's when absent. */
  threadNs?: string;
  newestFirst?: { below?: string; limit?: number };
}

export interface CheckpointsRepository {
  /** The checkpoint of this `cp_key`. */
  get(cpKey: string): Promise<CheckpointRecord | undefined>;
  list(query: CheckpointQuery): Promise<CheckpointRecord[]>;
  /** Every checkpoint of every thread (retention, listings without a thread), in no given order. */
  all(): Promise<CheckpointRecord[]>;
  /** How many checkpoints the thread has, in every namespace. */
  count(threadId: string): Promise<number>;
  /**
   * The newest checkpoint of a thread namespace (the highest id: checkpoint ids are
   * time-ordered) with its pending writes, found where the data is: a run worker asks the
   * main thread for this in one call instead of being sent every checkpoint of the thread.
   */
  newest(threadNs: string): Promise<StoredHead | undefined>;
  /** The pending writes made against the checkpoint of this `cp_key`. */
  writesOf(cpKey: string): Promise<WriteRecord[]>;
  /** Every pending write of the thread's checkpoints. */
  writesOfThread(threadId: string): Promise<WriteRecord[]>;
  /** Stores one checkpoint on its own. */
  put(record: CheckpointRecord): Promise<void>;
  /** The writes that store or delete a checkpoint or a pending write, for `write`. */
  putOp(record: CheckpointRecord): WriteOp;
  deleteOp(record: CheckpointRecord): WriteOp;
  putWriteOp(write: WriteRecord): WriteOp;
  deleteWriteOp(write: WriteRecord): WriteOp;
  /** Applies writes atomically. */
  write(ops: WriteOp[]): Promise<void>;
}
