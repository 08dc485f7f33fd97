// A LangGraph.js checkpoint saver backed by agentplane's store, so the state of LangGraph
// graphs lives (and is journalled) with the rest of the server's data. Checkpoints and
// pending writes are kept serialised as text, and each channel value apart from the
// checkpoints, once: a checkpoint names the values it holds, and one that a put leaves
// unchanged is not stored again (a thread's checkpoints all hold its messages, and a long
// thread's checkpoints each holding them whole was most of what a burst of large runs left
// in memory). Every checkpoint is kept, as upstream does,
// so history, forks and time travel work; retention (checkpointer.ttl: `expireBefore`,
// POST /threads/prune: `prune`) removes older ones.
//
// Nothing here imports LangGraph: the store side (threads, history, retention) works without
// it, and a server or test process without a graph never loads it. Its serialiser is
// imported on the first checkpoint read or written, and the BaseCheckpointSaver that graphs
// are given (langGraphSaver.ts) when the first graph is loaded.
import { copyWith } from '../../copyWith.ts';
import type { BaseCheckpointSaver, Checkpoint, CheckpointMetadata, CheckpointTuple } from '@langchain/langgraph';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { WriteOp } from '../../ports/store.ts';
import type { ChannelRef, ChannelValueRecord, CheckpointRecord, CheckpointsRepository, StoredHead, WriteRecord } from '../../ports/checkpointsRepository.ts';
import { deserialise, deserialiseSharing, langGraphSerde, RevivedObjects, serialise, type Serde, type Serialised } from './checkpointText.ts';
import { asTail, mayExtend, partsOf } from './channelChains.ts';
import { assignOwn } from '../../../shared/ownCopy.ts';
import { joinedText } from '../../../shared/joinedText.ts';

// what a run is handed of its thread names it by the saver that reads it (runContext.ts)
export type { StoredHead };

/** Which channels a put's checkpoint changed, by their new version (LangGraph's put's last argument). */
type ChannelVersions = Parameters<BaseCheckpointSaver['put']>[3];

// Special writes (errors, interrupts) use fixed negative slots so a retry overwrites them.
const SPECIAL_WRITE_IDX: Record<string, number> = { __error__: -1, __scheduled__: -2, __interrupt__: -3, __resume__: -4 };

/** Joins the parts of the checkpoints' and writes' keys (`thread_ns`, `cp_key`). */
export const CHECKPOINT_KEY_SEPARATOR = '\u001f';
const SEP = CHECKPOINT_KEY_SEPARATOR;

/** The newest checkpoint of one thread and namespace (`thread_ns` key) with its pending writes, as stored. */
export type NewestCheckpoint = (threadNs: string) => Promise<StoredHead | undefined>;

/** The key of a stored channel value: its `thread_ns`, its channel and the checkpoint that stored it (ChannelRef.at). */
export const channelValueKey = (threadNs: string, channel: string, at: string) => key(threadNs, channel, at);

/** The `thread_ns` key of a thread's root namespace. */
export const rootThreadNs = (threadId: string) => key(threadId, '');

const sameJson = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);
/** A key of checkpoint records: its parts between separators (joinedText: one-byte when they are). */
export const checkpointKey = (...parts: string[]): string => joinedText(parts, SEP);
const key = checkpointKey;

/** Configurable keys a checkpoint's own config already carries, or that name the run (it is in `metadata.run_id`). */
const NOT_METADATA = new Set(['checkpoint_ns', 'checkpoint_id', 'run_id', 'thread_id']);

/**
 * What upstream's checkpointer stores as a checkpoint's metadata: the run's configurable
 * (assistant_id, graph_id, the caller's own keys; not LangGraph's `__` internals), the run's
 * metadata (config.metadata: its run_id, run_attempt, the assistant's, thread's and request's
 * metadata), then LangGraph's (source, step, parents). `threads.getHistory({ metadata })`
 * filters on these.
 */
export function withRunMetadata<M extends object>(config: RunnableConfig, metadata: M): M {
  // assigned key by key, not spread: a spread's copy gets a hidden class of its own each time (ownCopy.ts)
  const merged: Record<string, unknown> = {};
  const configurable = config.configurable;
  if (configurable) {
    for (const k of Object.keys(configurable)) {
      const v: unknown = configurable[k];
      if (!k.startsWith('__') && !NOT_METADATA.has(k) && typeof v !== 'function') merged[k] = v;
    }
  }
  return assignOwn(assignOwn(merged, config.metadata), metadata) as M;
}

/**
 * What a run holding its thread knows of the thread's checkpoints: the newest one of each
 * namespace and the pending writes of the checkpoints it read or put, all as stored.
 */
interface HeldThread {
  runs: number;
  newest: Map<string, CheckpointRecord>;
  /** Namespaces known to have no checkpoint yet. */
  absent: Set<string>;
  writes: Map<string, WriteRecord[]>;
  /** The channel values (StoredHead.values) of the checkpoints in `newest`, by `cp_key`. */
  values: Map<string, Record<string, Serialised>>;
  /** Checkpoint writes not yet on the store. */
  inFlight: Set<Promise<void>>;
  /** Puts and writes begun but not yet known here (still being serialised): a read of the newest checkpoint waits for them. */
  preparing: Set<Promise<unknown>>;
  /** The runs holding it (one but for a moment), each with the first checkpoint write that failed under it. */
  holders: Set<Holder>;
  /** The newest checkpoint of each namespace as the run put it, before it was serialised. */
  put: Map<string, { checkpoint: Checkpoint; metadata: CheckpointMetadata }>;
}

/** A run's hold on its thread (StoreCheckpointer.hold). */
export interface ThreadHold {
  /**
   * Every checkpoint write made while held is on the store; rejects with the first that failed.
   * A write handed over unanswered (`awaited` false, see StoreCheckpointer's `ordered`) counts
   * once handed over: where it is made, its failure fails the run.
   */
  settled(): Promise<void>;
  /**
   * `settled`, except that the writes of a run that defers failures and holds the thread
   * alone, made in order by another thread (a run worker's main thread, see `ordered`),
   * are not waited for: that thread makes them before it takes the run's end, and fails the
   * run with the first that failed (runWorkerPool.ts). The run's end then costs no round trip.
   * A failure already known rejects.
   */
  settledOrOrdered(): Promise<void>;
  /**
   * `succeeded`: the run ended as it should (its checkpoint writes settled). Its last
   * checkpoint is then kept as put, for the thread's next run to start from without
   * deserialising the thread's state again (see `ended`).
   */
  release(succeeded?: boolean): void;
}

/** Threads whose last run's end state is kept as put (see `ended`); the oldest go first. */
const ENDED_KEPT = 256;
/**
 * How much state is kept so, counted as the length of its serialised text: the objects take
 * a few times that. A state larger than this alone is not kept.
 */
const ENDED_TEXT_LIMIT = 8 * 1024 * 1024;

interface Holder {
  deferFailures: boolean;
  failure?: { error: unknown };
}

export interface HoldOptions {
  /**
   * A failed checkpoint write is not told to LangGraph (its put resolves) but kept for
   * `settled`, and no later write of the thread is made. For "async" and "exit" durability:
   * LangGraph awaits those puts only when the run ends, and a put that rejects before then
   * is an unhandled rejection, which ends the process (or the run worker).
   */
  deferFailures: boolean;
  /**
   * The thread's newest root checkpoint as it was just read elsewhere (null: it has none):
   * a run worker is sent it with its run, so its first read is not a round trip.
   */
  newest?: StoredHead | null;
}

export class StoreCheckpointer {
  /**
   * LangGraph's serialiser, once a checkpoint was read or written (or the graphs' saver
   * made): the saver's, so that a serialiser set on it is the one used here too.
   */
  serde?: Serde;

  /** The BaseCheckpointSaver graphs are given, made on first use (langGraphSaver). */
  private saver?: Promise<BaseCheckpointSaver>;

  /**
   * Threads a run is executing on (see `hold`). While one run holds a thread nobody else
   * writes its checkpoints (a thread runs one run at a time), so what the run read or put is
   * what the store holds: the newest checkpoint and its write slots are answered from here,
   * not read again (a round trip each from a run worker, a query each on PostgreSQL).
   */
  private readonly held = new Map<string, HeldThread>();

  private readonly newestOf: NewestCheckpoint;

  /**
   * The root checkpoint each recent run ended on, as it was put (objects, not text), by
   * thread: the next run of the thread starts from it when it is still the thread's newest
   * with no pending writes (checkpoint ids are unique, so the same id is the same state).
   * Taken by the first read that uses it, so no two runs share its objects; kept only from a
   * run that succeeded, so never from one whose nodes may have changed them after the put.
   */
  private readonly ended = new Map<string, { checkpoint: Checkpoint; textLength: number; head?: StoredHead }>();
  private endedTextLength = 0;

  /**
   * `newest`: how the newest checkpoint is found when it is not computed here (a run worker).
   * `keptTextLimit`: how much end state is kept as put (see `ended`), in serialised characters.
   * `ordered`: the checkpoints over a view of the store whose writes for one thread are made
   * in the order given and none after one that failed, while the thread's run lasts (a run
   * worker's: its main thread orders them, orderedCalls.ts). A held thread's writes then go
   * through it, and a run alone on its thread that defers failures does not wait for each
   * (see `remembering`): `awaited` false says so, and the view may then hand the write over
   * without being told its outcome (a run worker's: no answer crosses back; its main thread
   * fails the run at its end with the first write that failed, runWorkerPool.ts).
   */
  constructor(
    private readonly checkpoints: CheckpointsRepository,
    newest?: NewestCheckpoint,
    private readonly keptTextLimit = ENDED_TEXT_LIMIT,
    private readonly ordered?: (threadId: string, awaited: boolean) => CheckpointsRepository,
  ) {
    this.newestOf = newest ?? ((threadNs) => checkpoints.newest(threadNs));
  }

  /**
   * These checkpoints as LangGraph's BaseCheckpointSaver (what a compiled graph is given),
   * made once: LangGraph is imported then, by the graph-loading path, not before.
   */
  langGraphSaver(): Promise<BaseCheckpointSaver> {
    return (this.saver ??= (async () => {
      const [{ LangGraphSaver }] = await Promise.all([import('./langGraphSaver.ts'), langGraphCopy()]);
      // the serialiser made here, not by the saver: its class is then known without an await
      // at every write (see serialise)
      this.serde ??= await langGraphSerde();
      return new LangGraphSaver(this);
    })());
  }

  /**
   * A run executes on `threadId` until it calls `release`. Two runs holding one thread at once
   * (a run being cancelled while the next starts) know nothing: both read. `settled` resolves
   * once every checkpoint write made while the thread is held is on the store, and rejects
   * with the first that failed: LangGraph's "async" durability does not wait for each one.
   */
  hold(threadId: string, options: HoldOptions = { deferFailures: false }): ThreadHold {
    const holder: Holder = { deferFailures: options.deferFailures };
    let held = this.held.get(threadId);
    if (held) {
      held.runs += 1;
      held.newest.clear();
      held.absent.clear();
      held.writes.clear();
      held.values.clear();
      held.put.clear();
    } else {
      held = {
        runs: 1,
        newest: new Map(),
        absent: new Set(),
        writes: new Map(),
        values: new Map(),
        inFlight: new Set(),
        preparing: new Set(),
        put: new Map(),
        holders: new Set(),
      };
      this.held.set(threadId, held);
      if (options.newest) {
        const { record } = options.newest;
        held.newest.set(record.checkpoint_ns, record);
        held.writes.set(key(threadId, record.checkpoint_ns, record.checkpoint_id), options.newest.writes);
        held.values.set(key(threadId, record.checkpoint_ns, record.checkpoint_id), options.newest.values);
      } else if (options.newest === null) held.absent.add('');
    }
    held.holders.add(holder);
    const thread = held;
    let released = false;
    const settled = async () => {
      while (thread.inFlight.size > 0) await Promise.allSettled([...thread.inFlight]);
      if (holder.failure) throw holder.failure.error;
    };
    return {
      settled,
      settledOrOrdered: async () => {
        if (!this.ordered || !holder.deferFailures || thread.holders.size !== 1) return settled();
        if (holder.failure) throw holder.failure.error;
      },
      release: (succeeded = false) => {
        const h = this.held.get(threadId);
        if (released || !h) return;
        released = true;
        const last = h.put.get('');
        const record = h.newest.get('');
        if (succeeded && h.runs === 1 && !holder.failure && last && record?.checkpoint_id === last.checkpoint.id) {
          const writes = h.writes.get(key(threadId, '', record.checkpoint_id));
          const values = h.values.get(key(threadId, '', record.checkpoint_id));
          this.keepEnded(threadId, last.checkpoint, textLengthOf(record), writes && values && { record, writes, values });
        } else this.dropEnded(threadId); // an older run's end is not the thread's newest any more: never taken for it
        h.holders.delete(holder);
        h.runs -= 1;
        if (h.runs === 0) this.held.delete(threadId);
      },
    };
  }

  private keepEnded(threadId: string, checkpoint: Checkpoint, textLength: number, head: StoredHead | undefined): void {
    this.dropEnded(threadId);
    if (textLength > this.keptTextLimit) return;
    this.ended.set(threadId, { checkpoint, textLength, head });
    this.endedTextLength += textLength;
    while (this.ended.size > ENDED_KEPT || this.endedTextLength > this.keptTextLimit) this.dropEnded(this.ended.keys().next().value!);
  }

  private dropEnded(threadId: string): void {
    const kept = this.ended.get(threadId);
    if (!kept) return;
    this.ended.delete(threadId);
    this.endedTextLength -= kept.textLength;
  }

  /**
   * The thread's newest root checkpoint as stored, with its pending writes, as the thread's last
   * run here left it (see `ended`), when all of it is known: what the thread's next run reads
   * first unless something else wrote the thread since (a run worker starts that run ahead on
   * it, and the main thread checks it before the run's effects count: runWorkerPool.ts).
   */
  endedHead(threadId: string): StoredHead | undefined {
    return this.ended.get(threadId)?.head;
  }

  /** The end state a run left on the thread (see `ended`), taken, when `checkpointId` is it. */
  private takeEnded(threadId: string, checkpointId: string): Checkpoint | undefined {
    const kept = this.ended.get(threadId);
    if (!kept) return undefined;
    this.dropEnded(threadId);
    return kept.checkpoint.id === checkpointId ? kept.checkpoint : undefined;
  }

  /** Whether `checkpointId` is newer than the newest checkpoint of `ns` the run holding the thread knows (false when it knows none). */
  private ahead(known: HeldThread, ns: string, checkpointId: string): boolean {
    const newest = known.newest.get(ns);
    return newest !== undefined && newest.checkpoint_id < checkpointId;
  }

  /** What is known of a thread one run holds alone; undefined when it is not so held. */
  private knownOf(threadId: string): HeldThread | undefined {
    const held = this.held.get(threadId);
    return held?.runs === 1 ? held : undefined;
  }

  /** Forgets what is known of a thread whose checkpoints were changed by other means than put/putWrites. */
  private forget(threadId: string): void {
    this.dropEnded(threadId);
    this.held.get(threadId)?.newest.clear();
    this.held.get(threadId)?.absent.clear();
    this.held.get(threadId)?.writes.clear();
    this.held.get(threadId)?.values.clear();
    this.held.get(threadId)?.put.clear();
  }

  /** The newest checkpoint of a thread namespace with its writes: known while the thread is held, else read. */
  private async newestHead(threadId: string, ns: string): Promise<StoredHead | undefined> {
    const known = this.knownOf(threadId);
    if (known?.absent.has(ns)) return undefined;
    const record = known?.newest.get(ns);
    const writes = record && known!.writes.get(key(threadId, ns, record.checkpoint_id));
    const values = record && known!.values.get(key(threadId, ns, record.checkpoint_id));
    if (record && writes && values) return { record, writes, values };
    const head = await this.newestOf(key(threadId, ns));
    // still held by the same run alone after the read: remember what it found
    if (head && known && this.knownOf(threadId) === known) {
      known.newest.set(ns, head.record);
      known.writes.set(key(threadId, ns, head.record.checkpoint_id), head.writes);
      known.values.set(key(threadId, ns, head.record.checkpoint_id), head.values);
    }
    return head;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = config.configurable?.thread_id as string | undefined;
    if (!threadId) return undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const wanted = config.configurable?.checkpoint_id as string | undefined;
    if (!wanted) {
      await this.preparedBefore(threadId);
      const head = await this.newestHead(threadId, ns);
      if (!head) return undefined;
      // the checkpoint the run itself put last (its state at the end of the run): as put, not
      // deserialised again. Only without pending writes: LangGraph applies those to the
      // checkpoint it gets, and the objects handed over are the run's own
      const own = this.knownOf(threadId)?.put.get(ns);
      if (own && own.checkpoint.id === head.record.checkpoint_id && head.writes.length === 0) {
        return {
          config: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: own.checkpoint.id } },
          checkpoint: copyOfCheckpoint(own.checkpoint, copyCheckpoint ?? (await langGraphCopy())),
          metadata: own.metadata,
          pendingWrites: [],
          ...(head.record.parent_checkpoint_id
            ? { parentConfig: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: head.record.parent_checkpoint_id } } }
            : {}),
        };
      }
      // the state the thread's last run ended on, kept as put: not deserialised again
      const ended = ns === '' && head.writes.length === 0 ? this.takeEnded(threadId, head.record.checkpoint_id) : undefined;
      if (ended) return this.toTuple(head.record, head.writes, ended);
      return this.toTuple(head.record, head.writes, undefined, head.values);
    }
    const record = await this.checkpoints.get(key(threadId, ns, wanted));
    const known = this.knownOf(threadId);
    return record ? this.toTuple(record, known?.writes.get(key(threadId, ns, wanted)), undefined, known?.values.get(key(threadId, ns, wanted))) : undefined;
  }

  async *list(
    config: RunnableConfig,
    options: { limit?: number; before?: RunnableConfig; filter?: Record<string, unknown> } = {},
  ): AsyncGenerator<CheckpointTuple> {
    const threadId = config.configurable?.thread_id as string | undefined;
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    const only = config.configurable?.checkpoint_id as string | undefined;
    const before = options.before?.configurable?.checkpoint_id as string | undefined;
    // a thread's history newest first reads only what it can use: the checkpoints before
    // `before`, and without a metadata filter (checked once each is read) only `limit` of
    // them, not every checkpoint of the thread
    const newestFirst = only
      ? undefined
      : {
          ...(before ? { below: before } : {}),
          ...(!options.filter && options.limit !== undefined ? { limit: options.limit } : {}),
        };
    let records = threadId
      ? await this.checkpoints.list({ threadId, ...(ns === undefined ? {} : { threadNs: key(threadId, ns) }), ...(newestFirst ? { newestFirst } : {}) })
      : await this.checkpoints.all();
    records = records.filter((r) => (!only || r.checkpoint_id === only) && (!before || r.checkpoint_id < before));
    records.sort((a, b) => (a.checkpoint_id < b.checkpoint_id ? 1 : a.checkpoint_id > b.checkpoint_id ? -1 : 0));
    let remaining = options.limit ?? Infinity;
    // without a metadata filter no more than `limit` are read whole: their values in one read
    if (!options.filter && records.length > remaining) records = records.slice(0, remaining);
    const values = await this.checkpoints.valuesOf(records);
    // the checkpoints hold the same messages over and over: each revived once (RevivedObjects)
    const revived = new RevivedObjects();
    for (const record of records) {
      if (remaining <= 0) return;
      revived.nextCheckpoint();
      const tuple = await this.toTuple(record, undefined, undefined, valuesByChannel(record, values), revived);
      if (options.filter && !Object.entries(options.filter).every(([k, v]) => sameJson((tuple.metadata as Record<string, unknown> | undefined)?.[k], v)))
        continue;
      remaining -= 1;
      yield tuple;
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions?: ChannelVersions): Promise<RunnableConfig> {
    const threadId = config.configurable?.thread_id as string;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    if (!threadId) throw new Error('checkpointer: configurable.thread_id is required');
    const { record, stored } = await this.preparing(threadId, this.preparePut(config, checkpoint, metadata, newVersions));
    await this.remembering(threadId, (checkpoints) => checkpoints.put(record, stored));
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  /** A put's record, serialised, and made known to the run holding the thread. */
  private async preparePut(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions | undefined,
  ): Promise<{ record: CheckpointRecord; stored: ChannelValueRecord[] }> {
    const threadId = config.configurable?.thread_id as string;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const runId = (config.configurable?.run_id ?? (metadata as Record<string, unknown>).run_id) as string | undefined;
    const cpKey = key(threadId, ns, checkpoint.id);
    // the run holding the thread makes its newest checkpoint (ids are time-ordered), with no
    // writes yet. Known at once, before any await: LangGraph puts a checkpoint's writes while
    // the checkpoint itself is still being put
    const known = this.knownOf(threadId);
    const newer = (held: HeldThread) => {
      const newest = held.newest.get(ns);
      return !newest || newest.checkpoint_id < checkpoint.id;
    };
    if (known && newer(known) && !known.writes.has(cpKey)) known.writes.set(cpKey, []);
    const fullMetadata = withRunMetadata(config, metadata);
    const parentId = config.configurable?.checkpoint_id as string | undefined;
    const parent = parentId ? await this.parentOf(threadId, ns, parentId) : undefined;
    const { checkpoint: text, channels, stored, values } = await this.split(key(threadId, ns), checkpoint, parent, newVersions);
    // built key by key in the order a literal would have them: spreads of the optional keys cost a
    // V8 runtime call each while this is not optimised (issue 86, a run's worker CPU)
    const record = { thread_id: threadId, thread_ns: key(threadId, ns), checkpoint_ns: ns, checkpoint_id: checkpoint.id } as CheckpointRecord;
    if (parentId) record.parent_checkpoint_id = parentId;
    if (runId) record.run_id = runId;
    record.checkpoint = text;
    record.metadata = await this.dump(fullMetadata);
    record.channels = channels;
    if (known && this.knownOf(threadId) === known && newer(known)) {
      // the previous one's writes and values are no longer needed here (a later read reads them)
      const previous = known.newest.get(ns);
      if (previous) {
        known.writes.delete(key(threadId, ns, previous.checkpoint_id));
        known.values.delete(key(threadId, ns, previous.checkpoint_id));
      }
      known.newest.set(ns, record);
      if (values) known.values.set(cpKey, values);
      known.absent.delete(ns);
      known.put.set(ns, { checkpoint, metadata: fullMetadata });
    }
    return { record, stored };
  }

  async putWrites(config: RunnableConfig, writes: [string, unknown][], taskId: string): Promise<void> {
    const threadId = config.configurable?.thread_id as string;
    const ops = await this.preparing(threadId, this.prepareWrites(config, writes, taskId));
    if (ops.length > 0) await this.remembering(threadId, (checkpoints) => checkpoints.write(ops));
  }

  /** The write operations of a putWrites, serialised, and made known to the run holding the thread. */
  private async prepareWrites(config: RunnableConfig, writes: [string, unknown][], taskId: string): Promise<WriteOp[]> {
    const threadId = config.configurable?.thread_id as string;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const checkpointId = config.configurable?.checkpoint_id as string;
    const cpKey = key(threadId, ns, checkpointId);
    const ops: WriteOp[] = [];
    // regular writes are idempotent: the first one for a slot wins, like upstream savers. The
    // slots already taken are known while the run holds the thread, else read once (one round
    // trip from a run worker, not one per write)
    const regular = writes.some(([channel]) => SPECIAL_WRITE_IDX[channel] === undefined);
    const known = this.knownOf(threadId);
    // a checkpoint newer than the newest the run knows is one it is about to put (with
    // "async" durability LangGraph puts a step's writes before the put of its checkpoint
    // has begun): nobody else writes a held thread, so it has no writes yet
    if (known && !known.writes.has(cpKey) && this.ahead(known, ns, checkpointId)) known.writes.set(cpKey, []);
    const knownWrites = known?.writes.get(cpKey);
    const existing = knownWrites ?? (regular ? await this.checkpoints.writesOf(cpKey) : []);
    const taken = new Set(existing.filter((w) => w.task_id === taskId).map((w) => w.idx));
    const records: WriteRecord[] = [];
    for (const [i, [channel, value]] of writes.entries()) {
      const idx = SPECIAL_WRITE_IDX[channel] ?? i;
      if (idx >= 0 && taken.has(idx)) continue;
      const record: WriteRecord = { thread_id: threadId, cp_key: cpKey, task_id: taskId, channel, idx, value: await this.dump(value) };
      ops.push(this.checkpoints.putWriteOp(record));
      records.push(record);
    }
    if (ops.length === 0) return ops;
    // known before the write is made, so that the writes of tasks running side by side all count
    const stillKnown = this.knownOf(threadId);
    const now = stillKnown?.writes.get(cpKey);
    if (now) {
      // a special write replaces the one in its slot
      const replaced = new Set(records.map((r) => `${r.task_id}${SEP}${r.idx}`));
      stillKnown!.writes.set(cpKey, [...now.filter((w) => !replaced.has(`${w.task_id}${SEP}${w.idx}`)), ...records]);
    }
    return ops;
  }

  /**
   * `prepared` (a put or write being serialised) counted for the thread until it is known here:
   * LangGraph's "async" durability reads the newest checkpoint without waiting for the writes
   * it began, and a read must hold them (a run's end missed its interrupt write when a write
   * took a tick more to serialise). Counted before the caller's first await.
   */
  private preparing<T>(threadId: string, prepared: Promise<T>): Promise<T> {
    const held = this.held.get(threadId);
    if (!held) return prepared;
    const counted: Promise<boolean> = prepared.then(
      () => held.preparing.delete(counted),
      () => held.preparing.delete(counted),
    );
    held.preparing.add(counted);
    return prepared;
  }

  /** Waits for the thread's puts and writes begun before now to be known here. */
  private async preparedBefore(threadId: string): Promise<void> {
    const held = this.held.get(threadId);
    if (held && held.preparing.size > 0) await Promise.allSettled([...held.preparing]);
  }

  /**
   * The checkpoint a put follows (its parent), as far as a put needs it: which values it holds
   * (known while the run holding the thread put or read it, else read), and those values when
   * known.
   */
  private async parentOf(
    threadId: string,
    ns: string,
    parentId: string,
  ): Promise<{ record: CheckpointRecord; values?: Record<string, Serialised> } | undefined> {
    const known = this.knownOf(threadId);
    const newest = known?.newest.get(ns);
    if (newest?.checkpoint_id === parentId) return { record: newest, values: known!.values.get(key(threadId, ns, parentId)) };
    const record = await this.checkpoints.get(key(threadId, ns, parentId));
    return record && { record };
  }

  /**
   * A checkpoint as stored: its text without the channel values, which are stored apart. A value
   * the parent holds at the same version (and that LangGraph did not count as new) is the
   * parent's: named, not stored again. The text keeps a null in each value's place, so that the
   * values read back in the order they were put. `values`: every value the checkpoint holds, by
   * channel, when all are at hand (the new ones, and the parent's when known).
   */
  private async split(
    threadNs: string,
    checkpoint: Checkpoint,
    parent: { record: CheckpointRecord; values?: Record<string, Serialised> } | undefined,
    newVersions: ChannelVersions | undefined,
  ): Promise<{ checkpoint: Serialised; channels: Record<string, ChannelRef>; stored: ChannelValueRecord[]; values?: Record<string, Serialised> }> {
    const channels: Record<string, ChannelRef> = {};
    const stored: ChannelValueRecord[] = [];
    let values: Record<string, Serialised> | undefined = {};
    const inline: Record<string, unknown> = {};
    const threadId = threadNs.slice(0, threadNs.indexOf(SEP));
    let parentValues = parent?.values;
    for (const [channel, value] of Object.entries(checkpoint.channel_values)) {
      const version = checkpoint.channel_versions[channel];
      if (value === undefined || version === undefined || isSmall(value)) {
        inline[channel] = value;
        continue;
      }
      inline[channel] = null;
      const theirs = parent?.record.channels?.[channel];
      if (theirs && theirs.version === version && !(newVersions && Object.hasOwn(newVersions, channel))) {
        channels[channel] = theirs;
        const known = parent!.values?.[channel];
        if (known && values) values[channel] = known;
        else values = undefined;
        continue;
      }
      const text = await this.dump(value);
      const chars = (text.text ?? text.b64 ?? '').length;
      // a value that extends its parent's (a message list appended to): stored as what it adds
      // (the parent's values read once, when not known: a put outside a run, a fork's first)
      if (theirs && !parentValues && text.text !== undefined && mayExtend(text.text)) {
        parentValues = valuesByChannel(parent!.record, await this.checkpoints.valuesOf([parent!.record]));
      }
      const parentValue = parentValues?.[channel];
      const tail = theirs && parentValue && text.text !== undefined ? asTail({ ref: theirs, value: parentValue }, text.text) : undefined;
      const at = checkpoint.id;
      if (tail) {
        channels[channel] = { version, at, chars, base: tail.base, stored: tail.stored };
        stored.push({ thread_id: threadId, thread_ns: threadNs, channel, at, keep: tail.keep, value: { type: text.type, text: tail.tail } });
      } else {
        channels[channel] = { version, at, chars };
        stored.push({ thread_id: threadId, thread_ns: threadNs, channel, at, value: text });
      }
      if (values) values[channel] = text;
    }
    return { checkpoint: await this.dump(copyWith(checkpoint, { channel_values: inline })), channels, stored, values };
  }

  /**
   * A write whose result was already taken as known: if it fails, nothing of the thread is
   * known any more. While the thread is held the write counts among those `settled` awaits,
   * and a failure is kept there instead of thrown when the hold says so. With an ordered
   * view (a run worker's) a held thread's writes go through it, and the run alone on its
   * thread that defers failures goes on without waiting for the answer: its writes are made
   * in order all the same, none after a failed one, and the run ends only once `settled`.
   */
  private async remembering(threadId: string, write: (checkpoints: CheckpointsRepository) => Promise<unknown>): Promise<void> {
    const held = this.held.get(threadId);
    const holders = held ? [...held.holders] : [];
    // a write of the run holding the thread alone failed: the run ends with that failure
    // (settled) and writes nothing more, as LangGraph makes no put after a failed one
    if (holders.length === 1 && holders[0].failure) return;
    const awaited = !(holders.length === 1 && holders[0].deferFailures);
    const via = held && this.ordered ? this.ordered(threadId, awaited) : this.checkpoints;
    let made: Promise<unknown>;
    try {
      made = write(via);
    } catch (err) {
      made = Promise.reject(err);
    }
    const done = made.then(
      () => undefined,
      (err: unknown) => {
        this.forget(threadId);
        throw err;
      },
    );
    if (!held) return done;
    held.inFlight.add(done);
    const outcome = done.then(
      () => held.inFlight.delete(done),
      (error: unknown) => {
        for (const holder of holders) holder.failure ??= { error };
        held.inFlight.delete(done);
        // whose write it was is not known with two runs on the thread: told only when none defers
        if (!holders.some((h) => h.deferFailures)) throw error;
      },
    );
    if (via !== this.checkpoints && !awaited) return;
    await outcome;
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.deleteWhere(threadId, () => true);
  }

  /** Deletes the checkpoints a run wrote (rollback); the thread falls back to the one before. */
  async deleteRun(threadId: string, runId: string): Promise<void> {
    await this.deleteWhere(threadId, (r) => r.run_id === runId);
  }

  /** What deletes a run's checkpoints, for the caller to write with the run's end (rolled back). */
  async deleteRunOps(threadId: string, runId: string): Promise<WriteOp[]> {
    this.forget(threadId);
    return this.deleteOps(threadId, (r) => r.run_id === runId);
  }

  /** The run that wrote the thread's latest root checkpoint. */
  async latestRunId(threadId: string): Promise<string | undefined> {
    return (await this.newestHead(threadId, ''))?.record.run_id;
  }

  /** Gives `toThread` a copy of every checkpoint (and pending write and channel value) of `fromThread`. */
  async copyThread(fromThread: string, toThread: string): Promise<void> {
    const ops: WriteOp[] = [];
    const records = await this.checkpoints.list({ threadId: fromThread });
    // the values as stored (a tail as a tail, with the values of its chain): the copy shares as the original does
    const values = await this.checkpoints.storedValuesOf(records);
    const copied = new Set<string>();
    for (const r of records) {
      const threadNs = key(toThread, r.checkpoint_ns);
      ops.push(this.checkpoints.putOp({ ...r, thread_id: toThread, thread_ns: threadNs }));
      for (const [channel, ref] of Object.entries(r.channels ?? {})) {
        for (const at of partsOf(ref)) {
          const value = values.get(channelValueKey(r.thread_ns, channel, at));
          const copyKey = channelValueKey(threadNs, channel, at);
          if (!value || copied.has(copyKey)) continue;
          copied.add(copyKey);
          ops.push(this.checkpoints.putValueOp({ ...value, thread_id: toThread, thread_ns: threadNs }));
        }
      }
    }
    for (const w of await this.checkpoints.writesOfThread(fromThread)) {
      const [, ns, checkpointId] = w.cp_key.split(SEP);
      ops.push(this.checkpoints.putWriteOp({ ...w, thread_id: toThread, cp_key: key(toThread, ns, checkpointId) }));
    }
    this.forget(toThread);
    if (ops.length) await this.checkpoints.write(ops);
  }

  /** Merges `metadata` into the metadata of the thread's latest root checkpoint; false without one. */
  async patchLatestMetadata(threadId: string, metadata: Record<string, unknown>): Promise<boolean> {
    const latest = (await this.newestHead(threadId, ''))?.record;
    if (!latest) return false;
    this.forget(threadId);
    const merged = { ...(await this.load(latest.metadata)), ...metadata };
    await this.checkpoints.put({ ...latest, metadata: await this.dump(merged) });
    return true;
  }

  /** How many checkpoints (all namespaces) the thread keeps. */
  async count(threadId: string): Promise<number> {
    return this.checkpoints.count(threadId);
  }

  /** Keeps only the latest checkpoint of each namespace of the thread (and its writes). */
  async prune(threadId: string): Promise<void> {
    const records = await this.checkpoints.list({ threadId });
    const latest = new Map<string, string>();
    for (const r of records) if ((latest.get(r.checkpoint_ns) ?? '') < r.checkpoint_id) latest.set(r.checkpoint_ns, r.checkpoint_id);
    await this.deleteWhere(threadId, (r) => latest.get(r.checkpoint_ns) !== r.checkpoint_id);
  }

  /**
   * Retention: deletes checkpoints written before `cutoffMs`, except the latest one of each
   * thread and namespace (the thread's current state stays). Answers how many went.
   */
  async expireBefore(cutoffMs: number): Promise<number> {
    const byThreadNs = new Map<string, CheckpointRecord[]>();
    for (const r of await this.checkpoints.all()) {
      const group = byThreadNs.get(r.thread_ns);
      if (group) group.push(r);
      else byThreadNs.set(r.thread_ns, [r]);
    }
    let removed = 0;
    for (const group of byThreadNs.values()) {
      if (group.length < 2) continue;
      const latest = group.reduce((a, b) => (a.checkpoint_id > b.checkpoint_id ? a : b));
      const doomed: CheckpointRecord[] = [];
      for (const r of group) {
        if (r === latest) continue;
        const { ts } = (await this.load(r.checkpoint)) as Checkpoint;
        if (Date.parse(ts) < cutoffMs) doomed.push(r);
      }
      if (doomed.length === 0) continue;
      const ids = new Set(doomed.map((r) => r.checkpoint_id));
      await this.deleteWhere(latest.thread_id, (r) => r.thread_ns === latest.thread_ns && ids.has(r.checkpoint_id));
      removed += doomed.length;
    }
    return removed;
  }

  private async deleteWhere(threadId: string, match: (r: CheckpointRecord) => boolean): Promise<void> {
    this.forget(threadId);
    const ops = await this.deleteOps(threadId, match);
    if (ops.length > 0) await this.checkpoints.write(ops);
  }

  private async deleteOps(threadId: string, match: (r: CheckpointRecord) => boolean): Promise<WriteOp[]> {
    const records = await this.checkpoints.list({ threadId });
    const doomed = records.filter(match);
    const going = new Set(doomed);
    // a value goes with the last checkpoint that names it
    const named = new Set<string>();
    // (or with the last whose value is a tail of it: a base stays while a tail names it)
    for (const r of records) {
      if (going.has(r)) continue;
      for (const [channel, ref] of Object.entries(r.channels ?? {})) for (const at of partsOf(ref)) named.add(channelValueKey(r.thread_ns, channel, at));
    }
    const ops: WriteOp[] = [];
    for (const r of doomed) {
      ops.push(this.checkpoints.deleteOp(r));
      for (const w of await this.checkpoints.writesOf(key(r.thread_id, r.checkpoint_ns, r.checkpoint_id))) ops.push(this.checkpoints.deleteWriteOp(w));
      for (const [channel, ref] of Object.entries(r.channels ?? {})) {
        for (const at of partsOf(ref)) {
          const valueKey = channelValueKey(r.thread_ns, channel, at);
          if (named.has(valueKey)) continue;
          named.add(valueKey);
          ops.push(this.checkpoints.deleteValueOp(r.thread_ns, channel, at));
        }
      }
    }
    return ops;
  }

  /**
   * `writes`: the checkpoint's pending writes when they are known; else they are read.
   * `checkpoint`: the checkpoint itself when it is at hand as put; else it is deserialised.
   * `values`: the channel values it names, by channel, when they are known; else they are read.
   * `revived`: the objects revived for the other checkpoints of one read, to share (RevivedObjects).
   */
  private async toTuple(
    record: CheckpointRecord,
    known?: WriteRecord[],
    checkpoint?: Checkpoint,
    values?: Record<string, Serialised>,
    revived?: RevivedObjects,
  ): Promise<CheckpointTuple> {
    const writes = known ?? (await this.checkpoints.writesOf(key(record.thread_id, record.checkpoint_ns, record.checkpoint_id)));
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: record.thread_id, checkpoint_ns: record.checkpoint_ns, checkpoint_id: record.checkpoint_id } },
      checkpoint: checkpoint ?? (await this.loadCheckpoint(record, values, revived)),
      metadata: await this.load(record.metadata),
      pendingWrites: await Promise.all(writes.map(async (w) => [w.task_id, w.channel, await this.load(w.value, revived)] as [string, string, unknown])),
    };
    if (record.parent_checkpoint_id) {
      tuple.parentConfig = { configurable: { thread_id: record.thread_id, checkpoint_ns: record.checkpoint_ns, checkpoint_id: record.parent_checkpoint_id } };
    }
    return tuple;
  }

  /** A stored checkpoint with the channel values it names put back in their places. */
  private async loadCheckpoint(record: CheckpointRecord, known?: Record<string, Serialised>, revived?: RevivedObjects): Promise<Checkpoint> {
    const checkpoint = (await this.load(record.checkpoint, revived)) as Checkpoint;
    if (!record.channels) return checkpoint;
    const values = known ?? valuesByChannel(record, await this.checkpoints.valuesOf([record]));
    for (const channel of Object.keys(record.channels)) {
      const value = values[channel];
      if (value) checkpoint.channel_values[channel] = await this.load(value, revived);
      else delete checkpoint.channel_values[channel];
    }
    return checkpoint;
  }

  // without an await once the serialiser is there: see serialise (checkpointText.ts)
  private dump(value: unknown): Promise<Serialised> {
    return this.serde ? serialise(this.serde, value) : this.serdeLoaded().then((serde) => serialise(serde, value));
  }

  private load(value: Serialised, revived?: RevivedObjects): Promise<any> {
    const read = (serde: Serde) => (revived ? deserialiseSharing(serde, value, revived) : deserialise(serde, value));
    return this.serde ? read(this.serde) : this.serdeLoaded().then(read);
  }

  private async serdeLoaded(): Promise<Serde> {
    const made = await langGraphSerde();
    // one made meanwhile (a saver, another read) wins: every read and write uses one serialiser
    return (this.serde ??= made);
  }
}

/** The values a record names, by channel, from values read by key (CheckpointsRepository.valuesOf). */
export function valuesByChannel(record: CheckpointRecord, values: Map<string, Serialised>): Record<string, Serialised> {
  const byChannel: Record<string, Serialised> = {};
  for (const [channel, ref] of Object.entries(record.channels ?? {})) {
    const value = values.get(channelValueKey(record.thread_ns, channel, ref.at));
    if (value) byChannel[channel] = value;
  }
  return byChannel;
}

/**
 * A value kept in its checkpoint's text rather than stored apart: a record of its own would
 * cost more than repeating it (LangGraph's own savers keep primitives in the checkpoint too).
 */
function isSmall(value: unknown): boolean {
  return value === null || typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && value.length <= SMALL_STRING);
}

const SMALL_STRING = 256;

/** How long a checkpoint's text is, with the values it names (what holding its state costs). */
function textLengthOf(record: CheckpointRecord): number {
  let length = (record.checkpoint.text ?? record.checkpoint.b64 ?? '').length;
  for (const ref of Object.values(record.channels ?? {})) length += ref.chars;
  return length;
}

/** LangGraph's copyCheckpoint (from the checkpoint package it re-exports), once imported (by the graphs' saver, or the first copy). */
let copyCheckpoint: ((checkpoint: Checkpoint) => Checkpoint) | undefined;
const langGraphCopy = async () => (copyCheckpoint ??= (await import('@langchain/langgraph-checkpoint')).copyCheckpoint);

/**
 * A copy of a checkpoint with every field the project's LangGraph put in it: agentplane's
 * copyCheckpoint copies the fields of its own version's checkpoint, and LangGraph 0.2's has
 * one more (`pending_sends`, which its loop reads at every step).
 */
function copyOfCheckpoint(checkpoint: Checkpoint, copyCheckpoint: (checkpoint: Checkpoint) => Checkpoint): Checkpoint {
  const others = Object.fromEntries(Object.entries(checkpoint).map(([name, value]) => [name, Array.isArray(value) ? [...value] : value]));
  return { ...others, ...copyCheckpoint(checkpoint) } as Checkpoint;
}
