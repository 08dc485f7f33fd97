// LangGraph's checkpoints, pending writes and channel values in three collections of the store:
// a checkpoint's id is its `cp_key` (thread, namespace, checkpoint id), a write's that and its
// task and slot, a channel value's its `thread_ns`, channel and the checkpoint that stored it
// (a tail's chain is read with it and joined here: agent/checkpoints/channelChains.ts).
// The same collections are tables on PostgreSQL (pgTables.ts), and a run worker's remote
// store (run-workers/remoteStore.ts) reaches them on the main thread, so nothing here asks
// for a filter function.
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type {
  ChannelValueRecord,
  CheckpointQuery,
  CheckpointRecord,
  CheckpointsRepository,
  StoredHead,
  WriteRecord,
} from '../../domain/ports/checkpointsRepository.ts';
import type { Serialised } from '../../domain/agent/checkpoints/checkpointText.ts';
import { channelValueKey, checkpointKey as key, valuesByChannel } from '../../domain/agent/checkpoints/checkpointer.ts';
import { joinChain, partsOf } from '../../domain/agent/checkpoints/channelChains.ts';

const cpKeyOf = (r: CheckpointRecord) => key(r.thread_id, r.checkpoint_ns, r.checkpoint_id);
const writeIdOf = (w: WriteRecord) => key(w.cp_key, w.task_id, String(w.idx));

/** Each value `records` name, once, by its key: the keys of its chain's records (a tail's base values first, its own last). */
function chainsOf(records: CheckpointRecord[]): Map<string, string[]> {
  const chains = new Map<string, string[]>();
  for (const r of records) {
    for (const [channel, ref] of Object.entries(r.channels ?? {})) {
      const valueKey = channelValueKey(r.thread_ns, channel, ref.at);
      if (!chains.has(valueKey))
        chains.set(
          valueKey,
          partsOf(ref).map((at) => channelValueKey(r.thread_ns, channel, at)),
        );
    }
  }
  return chains;
}

/** The store's collections of the checkpoints, their pending writes and their channel values (supersededCheckpoints.ts reads them by name too). */
export const CHECKPOINT_COLLECTIONS = { checkpoints: 'checkpoints', writes: 'checkpoint_writes', values: 'checkpoint_values' } as const;

export class CollectionCheckpoints implements CheckpointsRepository {
  private readonly checkpoints: Collection<CheckpointRecord>;
  private readonly writes: Collection<WriteRecord>;
  private readonly values: Collection<ChannelValueRecord>;

  constructor(private readonly store: Store) {
    this.checkpoints = store.collection<CheckpointRecord>(CHECKPOINT_COLLECTIONS.checkpoints, { indexes: ['thread_id', 'thread_ns'] });
    this.writes = store.collection<WriteRecord>(CHECKPOINT_COLLECTIONS.writes, { indexes: ['thread_id', 'cp_key'] });
    this.values = store.collection<ChannelValueRecord>(CHECKPOINT_COLLECTIONS.values, { indexes: ['thread_id'] });
  }

  get(cpKey: string): Promise<CheckpointRecord | undefined> {
    return this.checkpoints.get(cpKey);
  }

  list(query: CheckpointQuery): Promise<CheckpointRecord[]> {
    const { newestFirst } = query;
    return this.checkpoints.list({
      where: query.threadNs === undefined ? { thread_id: query.threadId } : { thread_ns: query.threadNs },
      ...(newestFirst
        ? {
            orderBy: 'checkpoint_id',
            reverse: true,
            ...(newestFirst.below !== undefined ? { below: newestFirst.below } : {}),
            ...(newestFirst.limit !== undefined ? { limit: newestFirst.limit } : {}),
          }
        : {}),
    });
  }

  all(): Promise<CheckpointRecord[]> {
    return this.checkpoints.list();
  }

  count(threadId: string): Promise<number> {
    return this.checkpoints.count({ where: { thread_id: threadId } });
  }

  async newest(threadNs: string): Promise<StoredHead | undefined> {
    // checkpoint ids are time-ordered: the newest is the highest (not the last inserted, which a
    // cancelled run's late write can be)
    const [newest] = await this.checkpoints.list({ where: { thread_ns: threadNs }, orderBy: 'checkpoint_id', reverse: true, limit: 1 });
    if (!newest) return undefined;
    const [writes, values] = await Promise.all([this.writesOf(cpKeyOf(newest)), this.valuesOf([newest])]);
    return { record: newest, writes, values: valuesByChannel(newest, values) };
  }

  async valuesOf(records: CheckpointRecord[]): Promise<Map<string, Serialised>> {
    const chains = chainsOf(records);
    const found = new Map<string, Serialised>();
    if (chains.size === 0) return found;
    const stored = await this.readValues(chains);
    for (const [valueKey, parts] of chains) {
      const value = joinChain(parts.map((id) => stored.get(id)));
      if (value) found.set(valueKey, value);
    }
    return found;
  }

  storedValuesOf(records: CheckpointRecord[]): Promise<Map<string, ChannelValueRecord>> {
    return this.readValues(chainsOf(records));
  }

  /** The value records of these chains, by key, in one read; a missing one left out. */
  private async readValues(chains: Map<string, string[]>): Promise<Map<string, ChannelValueRecord>> {
    const ids = [...new Set([...chains.values()].flat())];
    const found = new Map<string, ChannelValueRecord>();
    if (ids.length === 0) return found;
    const read = await this.values.getMany(ids);
    for (const [i, value] of read.entries()) if (value) found.set(ids[i], value);
    return found;
  }

  writesOf(cpKey: string): Promise<WriteRecord[]> {
    return this.writes.list({ where: { cp_key: cpKey } });
  }

  writesOfThread(threadId: string): Promise<WriteRecord[]> {
    return this.writes.list({ where: { thread_id: threadId } });
  }

  put(record: CheckpointRecord, values: ChannelValueRecord[] = []): Promise<void> {
    // one atomic write: a checkpoint is never stored without the values it names (and a
    // write even with none: a run worker's main thread makes a thread's writes that pile up as one)
    return this.store.write([this.putOp(record), ...values.map((v) => this.putValueOp(v))]);
  }

  putOp(record: CheckpointRecord): WriteOp {
    return { collection: this.checkpoints.name, id: cpKeyOf(record), value: record };
  }

  deleteOp(record: CheckpointRecord): WriteOp {
    return { collection: this.checkpoints.name, id: cpKeyOf(record), delete: true };
  }

  putWriteOp(write: WriteRecord): WriteOp {
    return { collection: this.writes.name, id: writeIdOf(write), value: write };
  }

  deleteWriteOp(write: WriteRecord): WriteOp {
    return { collection: this.writes.name, id: writeIdOf(write), delete: true };
  }

  putValueOp(value: ChannelValueRecord): WriteOp {
    return { collection: this.values.name, id: channelValueKey(value.thread_ns, value.channel, value.at), value };
  }

  deleteValueOp(threadNs: string, channel: string, at: string): WriteOp {
    return { collection: this.values.name, id: channelValueKey(threadNs, channel, at), delete: true };
  }

  write(ops: WriteOp[]): Promise<void> {
    return this.store.write(ops);
  }
}
