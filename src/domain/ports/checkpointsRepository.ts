// LangGraph's checkpoints and their pending writes as the checkpoint saver (agent/checkpoints/checkpointer.ts)
// keeps them: serialised, keyed by thread, namespace and checkpoint id (`thread_ns` and
// `cp_key`, joined by the saver's separator). A checkpoint's channel values are stored apart,
// each once (ChannelValueRecord), and every checkpoint holding a value unchanged names the one
// stored copy: a thread's checkpoints share what they have in common, as LangGraph's own
// savers share their blobs by channel version; a value that extends its parent's (a growing
// message list) is stored as the text it adds (agent/checkpoints/channelChains.ts). The saver decides what is known, held and
// written when; this is where the records are read and what they are written with. Kept in
// two collections of the store (adapters/embedded/collectionCheckpoints.ts), tables on
// PostgreSQL, and reached from a run worker through its remote store.
import type { Serialised } from '../agent/checkpoints/checkpointText.ts';
import type { WriteOp } from './store.ts';

export interface CheckpointRecord {
  thread_id: string;
  /** The thread and namespace, joined. */
  thread_ns: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id?: string;
  run_id?: string;
  /** The checkpoint; without the values of the channels in `channels` (those are stored apart). */
  checkpoint: Serialised;
  metadata: Serialised;
  /**
   * The channel values stored apart, by channel: which stored value (ChannelValueRecord) the
   * checkpoint holds. Absent in records stored before values were (their `checkpoint` text
   * holds every value), which read as they are.
   */
  channels?: Record<string, ChannelRef>;
}

/**
 * A channel value a checkpoint holds: the channel's version in it, and the checkpoint whose
 * put stored the value. The value is keyed by that checkpoint, not by the version alone:
 * LangGraph.js counts versions up from the checkpoint a fork or a rolled-back run started
 * from, so one version can name two values in a thread.
 */
export interface ChannelRef {
  version: string | number;
  /** The `checkpoint_id` of the checkpoint that stored the value. */
  at: string;
  /** The length of the value's text (what the state costs to hold: StoreCheckpointer's kept end states). */
  chars: number;
  /**
   * The value is stored as a tail of another (agent/checkpoints/channelChains.ts): the `at` of each value
   * of its chain before its own, the whole one first. Absent: stored whole.
   */
  base?: string[];
  /** The length of the texts its chain stores, its own included (`chars` when stored whole). */
  stored?: number;
}

/** One stored channel value, shared by the checkpoints of its namespace that name it. */
export interface ChannelValueRecord {
  thread_id: string;
  thread_ns: string;
  channel: string;
  /** The checkpoint that stored it (ChannelRef.at). */
  at: string;
  /**
   * A tail (ChannelRef.base): the value is the first `keep` characters of the value before it
   * in its chain, then `value`'s text. Absent: `value` is the value whole.
   */
  keep?: number;
  value: Serialised;
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

/** A checkpoint as stored, with the pending writes made against it and the values it names (`channels`), by channel. */
export interface StoredHead {
  record: CheckpointRecord;
  writes: WriteRecord[];
  values: Record<string, Serialised>;
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
  /**
   * The channel values `records` name, by their key (channelValueKey), each whole (a tail
   * joined to its chain's values: channelChains.ts): one read for them all. A value that is
   * missing, or one of whose chain is, is left out.
   */
  valuesOf(records: CheckpointRecord[]): Promise<Map<string, Serialised>>;
  /** The stored value records `records` name, with those of their chains, by their key, as stored (a tail as a tail). */
  storedValuesOf(records: CheckpointRecord[]): Promise<Map<string, ChannelValueRecord>>;
  /** Stores one checkpoint on its own (with the values it stored: `values`). */
  put(record: CheckpointRecord, values?: ChannelValueRecord[]): Promise<void>;
  /** The writes that store or delete a checkpoint or a pending write, for `write`. */
  putOp(record: CheckpointRecord): WriteOp;
  deleteOp(record: CheckpointRecord): WriteOp;
  putWriteOp(write: WriteRecord): WriteOp;
  putValueOp(value: ChannelValueRecord): WriteOp;
  /** Deletes the value of `channel` stored by the checkpoint `at` of this `thread_ns` (whole or a tail, as stored). */
  deleteValueOp(threadNs: string, channel: string, at: string): WriteOp;
  deleteWriteOp(write: WriteRecord): WriteOp;
  /** Applies writes atomically. */
  write(ops: WriteOp[]): Promise<void>;
}
