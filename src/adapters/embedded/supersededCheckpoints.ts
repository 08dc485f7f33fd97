// What of a thread's LangGraph checkpoints the embedded store's value cache stops holding once a
// newer checkpoint of the same thread and namespace is put (issue 87). A run of a one-node graph
// puts three checkpoints, each with its channel values and pending writes, and the cache kept
// them all, though the thread's next run reads only the newest (its record, its writes, and the
// values its channels name): the others were a third of what a run left alive past a scavenge
// with the runs alone (h87f35, scripts/bench/findings.md). A put's parent (the checkpoint it
// follows, older by its time-ordered id) is dropped from the cache with its pending writes and
// the values only it named; the records stay where they are on disk, and a read of them (a
// thread's history, its state at a checkpoint, a fork) reads them from there.
import type { ChannelRef, CheckpointRecord } from '../../domain/ports/checkpointsRepository.ts';
import { channelValueKey, checkpointKey } from '../../domain/agent/checkpoints/checkpointer.ts';
import { chainLength, partAt } from '../../domain/agent/checkpoints/channelChains.ts';
import { CHECKPOINT_COLLECTIONS } from './collectionCheckpoints.ts';

/** The collection whose puts supersede (collectionCheckpoints.ts names the three). */
export const CHECKPOINTS = CHECKPOINT_COLLECTIONS.checkpoints;
const { writes: WRITES, values: VALUES } = CHECKPOINT_COLLECTIONS;

/** The value cache as this needs it: records found only among those in memory now (a group not held has no value cached). */
export interface CachedRecords {
  /** Drops the record's value from the cache; answers it when it was cached. */
  uncache(collection: string, id: string): object | undefined;
  /** The ids of the records in memory now whose indexed `field` is `value`, in the group of `id` (a copy: safe to uncache while iterating). */
  heldIdsWhere(collection: string, id: string, field: string, value: string): Iterable<string>;
}

/**
 * Whether the channel's value `ref` names reads the stored value at `at` (its own, or one of its
 * chain's). `at`s compared as they are: a key made for each of a long chain's parts, twice a
 * put, was ~4% of the main thread's allocation with a thread's messages 64 parts long.
 */
function reads(ref: ChannelRef | undefined, at: string): boolean {
  return ref !== undefined && (ref.at === at || (ref.base !== undefined && ref.base.includes(at)));
}

/** Whether `ref`'s chain begins with every part of `parent`'s: the same value, or a tail of it (a thread's messages, run after run). */
function readsAllOf(ref: ChannelRef | undefined, parent: ChannelRef): boolean {
  if (ref === undefined || chainLength(ref) < chainLength(parent)) return false;
  for (let i = 0; i < chainLength(parent); i += 1) if (partAt(ref, i) !== partAt(parent, i)) return false;
  return true;
}

/** Drops from the cache the values `parent` read that `child` does not: compared channel by channel, a key made only for a value dropped. */
function dropUnread(
  parent: Pick<CheckpointRecord, 'thread_ns' | 'channels'>,
  child: Pick<CheckpointRecord, 'thread_ns' | 'channels'>,
  cached: CachedRecords,
): void {
  const childReads = parent.thread_ns === child.thread_ns ? (child.channels ?? {}) : {};
  for (const [channel, ref] of Object.entries(parent.channels ?? {})) {
    const kept = childReads[channel];
    if (readsAllOf(kept, ref)) continue;
    for (const at of ref.base ?? []) if (!reads(kept, at)) cached.uncache(VALUES, channelValueKey(parent.thread_ns, channel, at));
    if (!reads(kept, ref.at)) cached.uncache(VALUES, channelValueKey(parent.thread_ns, channel, ref.at));
  }
}

/**
 * Drops from the cache what `child`'s put superseded: its parent checkpoint, the parent's pending
 * writes, and the values the parent read that the child does not. Nothing when the parent is
 * not older (ids are time-ordered) or not in memory.
 */
export function dropSuperseded(put: object, cached: CachedRecords): void {
  const child = put as CheckpointRecord;
  const parentId = child.parent_checkpoint_id;
  if (!parentId || !(parentId < child.checkpoint_id)) return;
  const parentKey = checkpointKey(child.thread_id, child.checkpoint_ns, parentId);
  const parent = cached.uncache(CHECKPOINTS, parentKey) as CheckpointRecord | undefined;
  for (const id of cached.heldIdsWhere(WRITES, parentKey, 'cp_key', parentKey)) cached.uncache(WRITES, id);
  if (parent?.channels) dropUnread(parent, child, cached);
}
