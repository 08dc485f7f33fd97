// Threads: create, read, search, count, patch, copy, prune, delete, and their state and
// history. Writes to one thread run under the thread's lock (shared with the run service),
// so they never interleave with a run's creation. A Threads serves one owner (a tenant, or
// '' while agent-server auth is off): another owner's thread is answered exactly as a
// missing one, except that its id cannot be taken.
import type {
  Thread,
  ThreadCountRequest,
  ThreadCreateRequest,
  ThreadHistoryRequest,
  ThreadPatchRequest,
  ThreadPruneRequest,
  ThreadSearchRequest,
  ThreadState,
  ThreadStateUpdateRequest,
  ThreadStateUpdateResult,
  ThreadTtl,
} from '../../../../generated/agent-server/types.gen.ts';
import type { Locks } from '../../keyedLock.ts';
import type { ThreadFilter, ThreadSortField, ThreadsRepository } from '../../ports/threadsRepository.ts';
import { fail, ok, type FailureKind, type Outcome } from '../../outcome.ts';
import { createWithin, type TenantQuotas } from '../../tenantQuotas.ts';
import { nowIso } from '../../clock.ts';
import { uuid4 } from '../ids.ts';
import type { RunEventLog } from '../../ports/runEventLog.ts';
import { newThread, ownerOf, toApiThread, type ThreadRecord, type ThreadTtlSetting } from '../records.ts';
import type { RunEngine } from '../runs/runEngine.ts';
import { stateContains } from './stateContainment.ts';
import type { CheckpointSelector, ThreadService } from '../service.ts';
import type { ThreadCheckpoints } from './threadCheckpoints.ts';
import type { ThreadStateReader } from './threadState.ts';

export interface ThreadDeps {
  /** The threads, their searches and counts (in SQL on PostgreSQL). */
  threads: ThreadsRepository;
  /** The thread's runs in flight: read, cancelled, and discarded with the thread. */
  engine: Pick<RunEngine, 'inflight' | 'cancel' | 'discard'>;
  /** Waited on for a cancelled run's end. */
  eventLog: Pick<RunEventLog, 'ended'>;
  stateReader: ThreadStateReader;
  checkpoints: ThreadCheckpoints;
  /** Per-thread lock, shared with the run service. */
  locks: Locks;
  /** How many threads a tenant may hold (domain/tenantQuotas.ts); unbounded when absent. */
  quotas?: Partial<TenantQuotas>;
}

export const threadNotFound = (threadId: string) => fail('not_found', `Thread with ID ${threadId} not found`);

export class Threads implements ThreadService {
  constructor(
    private readonly deps: ThreadDeps,
    /** Whose threads these are (see ownerOf). */
    private readonly owner: string,
  ) {}

  /** The thread when it exists and is this owner's. */
  private async find(threadId: string): Promise<ThreadRecord | undefined> {
    const record = await this.deps.threads.get(threadId);
    return record && ownerOf(record) === this.owner ? record : undefined;
  }

  private readonly mine = (t: ThreadRecord) => ownerOf(t) === this.owner;

  async create(body: ThreadCreateRequest = {}): Promise<Outcome<Thread, 'conflict' | 'invalid' | 'quota_exceeded'>> {
    // an id made here is new: no other request can know it yet, to hold its lock or to have
    // stored a thread under it (a random UUID), so neither is asked (most creates name none)
    const threadId = body.thread_id ?? null;
    if (threadId === null) return this.withinQuota(() => this.insert(uuid4(), body));
    return this.deps.locks.run(threadId, async () => {
      const existing = await this.deps.threads.get(threadId);
      if (existing) {
        // ids are one space for every owner: another's is taken, and nothing more is said of it
        return body.if_exists === 'do_nothing' && this.mine(existing) ? ok(await this.view(existing)) : fail('conflict', 'Thread already exists');
      }
      return this.withinQuota(() => this.insert(threadId, body));
    });
  }

  /** `create` (of one more thread of this owner) done only while the owner is within its quota of threads. */
  private withinQuota<K extends FailureKind>(create: () => Promise<Outcome<Thread, K>>): Promise<Outcome<Thread, K | 'quota_exceeded'>> {
    const held = () => this.deps.threads.count({ owner: this.owner });
    return createWithin('threads', this.owner, this.deps.quotas ?? {}, this.deps.locks, held, create);
  }

  /** Stores a new thread under `threadId`, with the request's supersteps if any. */
  private async insert(threadId: string, body: ThreadCreateRequest): Promise<Outcome<Thread, 'conflict' | 'invalid'>> {
    const record = newThread(threadId, (body.metadata as Record<string, unknown>) ?? {}, this.owner, body.ttl ? ttlOf(body.ttl) : undefined);
    await this.deps.threads.insert(record);
    if (body.supersteps?.length) {
      const applied = await this.deps.checkpoints.applySupersteps(record, body.supersteps);
      if (applied && !applied.ok) {
        // the thread is created with its supersteps or not at all
        await this.remove(threadId);
        return fail('invalid', applied.failure.detail);
      }
      return ok(await this.view(await this.storeValues(record)));
    }
    return ok(toApiThread(record, null));
  }

  async get(threadId: string, include: { ttl?: boolean } = {}): Promise<Outcome<Thread, 'not_found'>> {
    const record = await this.find(threadId);
    return record ? ok(await this.view(record, include)) : threadNotFound(threadId);
  }

  async metadata(threadId: string): Promise<Outcome<Record<string, unknown>, 'not_found'>> {
    const record = await this.find(threadId);
    return record ? ok(record.metadata) : threadNotFound(threadId);
  }

  async count(query: ThreadCountRequest = {}): Promise<number> {
    const filter = this.filter(query);
    if (!query.values) return this.deps.threads.count(filter);
    let count = 0;
    for (const t of await this.deps.threads.search(filter, { sortBy: 'created_at', order: 'asc', offset: 0 }))
      if (stateContains(await this.deps.stateReader.storedValues(t), query.values)) count += 1;
    return count;
  }

  /** The request's filters, on this owner's threads. */
  private filter(query: Pick<ThreadSearchRequest, 'status' | 'metadata' | 'ids'>): ThreadFilter {
    return {
      owner: this.owner,
      ...(query.status ? { status: query.status } : {}),
      ...(query.metadata && typeof query.metadata === 'object' ? { metadata: query.metadata as Record<string, unknown> } : {}),
      ...(query.ids ? { ids: query.ids } : {}),
    };
  }

  async patch(threadId: string, body: ThreadPatchRequest): Promise<Outcome<Thread, 'not_found'>> {
    return this.deps.locks.run(threadId, async () => {
      // the upstream JS server's wording for this operation
      if (!(await this.find(threadId))) return fail('not_found', 'Thread not found');
      const updated = await this.deps.threads.update(threadId, (t) => ({
        ...t,
        metadata: { ...t.metadata, ...((body.metadata as Record<string, unknown>) ?? {}) },
        ...ttlSetting(body.ttl),
        updated_at: nowIso(),
      }));
      return updated ? ok(await this.view(updated)) : threadNotFound(threadId);
    });
  }

  /** `as`: the copy's id and metadata when the auth handlers were shown (and may have changed) them. */
  async copy(threadId: string, as: { thread_id?: unknown; metadata?: unknown } = {}): Promise<Outcome<Thread, 'not_found' | 'quota_exceeded'>> {
    return this.deps.locks.run(threadId, async () => {
      const source = await this.find(threadId);
      if (!source) return threadNotFound(threadId);
      // the copy's graph is the source's: before its own first run it is read from metadata
      const graphId = await this.deps.stateReader.graphOf(source);
      const copyId = typeof as.thread_id === 'string' ? as.thread_id : uuid4();
      // as upstream: the copy's metadata names the copy (clients tell copies apart by it)
      const metadata = {
        ...((as.metadata as Record<string, unknown> | undefined) ?? source.metadata),
        ...(graphId ? { graph_id: graphId } : {}),
        thread_id: copyId,
      };
      const copy: ThreadRecord = {
        ...newThread(copyId, metadata, this.owner),
        config: source.config,
        interrupts: source.interrupts,
        values: await this.deps.stateReader.storedValues(source),
        ...(source.ttl ? { ttl: source.ttl } : {}),
      };
      return this.withinQuota(async () => {
        await this.deps.checkpoints.copy(threadId, copy.thread_id);
        await this.deps.threads.insert(copy);
        return ok(await this.view(copy));
      });
    });
  }

  async prune(body: ThreadPruneRequest): Promise<number> {
    let pruned = 0;
    for (const threadId of new Set(body.thread_ids)) {
      const done = body.strategy === 'keep_latest' ? await this.keepLatest(threadId) : (await this.delete(threadId)).ok;
      if (done) pruned += 1;
    }
    return pruned;
  }

  /** Prunes a thread to its latest state; false when it is missing or a run is in flight. */
  async keepLatest(threadId: string): Promise<boolean> {
    return this.deps.locks.run(threadId, async () => {
      if (!(await this.find(threadId)) || (await this.deps.engine.inflight(threadId)).length > 0) return false;
      await this.deps.checkpoints.keepLatest(threadId);
      return true;
    });
  }

  async search(query: ThreadSearchRequest = {}): Promise<Thread[]> {
    const { threads, stateReader } = this.deps;
    const filter = this.filter(query);
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 10;
    const sortBy: ThreadSortField = query.sort_by === 'state_updated_at' ? 'updated_at' : (query.sort_by ?? 'created_at');
    const order = query.sort_order ?? 'desc';
    let page: ThreadRecord[];
    if (query.values) {
      // the values are in the record's document, not its columns: every match is read, then filtered here
      // (upstream's containment, stateContainment.ts)
      const matching: ThreadRecord[] = [];
      for (const t of await threads.search(filter, { sortBy, order, offset: 0 }))
        if (stateContains(await stateReader.storedValues(t), query.values)) matching.push(t);
      page = matching.slice(offset, offset + limit);
    } else {
      page = await threads.search(filter, { sortBy, order, offset, limit });
    }
    return Promise.all(page.map((t) => this.view(t)));
  }

  async delete(threadId: string): Promise<Outcome<void, 'not_found'>> {
    return this.deps.locks.run(threadId, async () => {
      if (!(await this.find(threadId))) return threadNotFound(threadId);
      await this.remove(threadId);
      return ok(undefined);
    });
  }

  /** Rolls back the thread's runs in flight, waits for them to stop, then deletes everything. */
  private async remove(threadId: string): Promise<void> {
    const { engine, eventLog } = this.deps;
    const inflight = await engine.inflight(threadId);
    for (const runId of inflight) await engine.cancel(threadId, runId, 'rollback');
    // let a running graph stop before its state is removed, or it could write after us
    for (const runId of inflight) await eventLog.ended(runId);
    await engine.discard(threadId);
  }

  /** Deletes the threads an assistant's runs were on (metadata.assistant_id, as upstream); answers how many. */
  async deleteOfAssistant(assistantId: string): Promise<number> {
    const mine = await this.deps.threads.search(
      { owner: this.owner, metadata: { assistant_id: assistantId } },
      { sortBy: 'created_at', order: 'asc', offset: 0 },
    );
    let deleted = 0;
    for (const thread of mine) if ((await this.delete(thread.thread_id)).ok) deleted += 1;
    return deleted;
  }

  async getState(threadId: string, options: { subgraphs?: boolean } = {}): Promise<Outcome<ThreadState, 'not_found'>> {
    const record = await this.find(threadId);
    return record ? ok(await this.deps.stateReader.latest(record, options)) : threadNotFound(threadId);
  }

  async getStateAt(threadId: string, checkpoint: CheckpointSelector, options: { subgraphs?: boolean } = {}): Promise<Outcome<ThreadState, 'not_found'>> {
    const record = await this.find(threadId);
    if (!record) return threadNotFound(threadId);
    const state = await this.deps.stateReader.state(record, { ...options, checkpointId: checkpoint.checkpoint_id, checkpointNs: checkpoint.checkpoint_ns });
    return state ? ok(state) : fail('not_found', `Checkpoint ${checkpoint.checkpoint_id} not found on thread ${threadId}`);
  }

  async history(
    threadId: string,
    query: Omit<ThreadHistoryRequest, 'before'> & { before?: string | CheckpointSelector },
  ): Promise<Outcome<ThreadState[], 'not_found'>> {
    const record = await this.find(threadId);
    if (!record) return threadNotFound(threadId);
    const before = typeof query.before === 'string' ? query.before : query.before?.checkpoint_id;
    return ok(
      await this.deps.stateReader.history(record, {
        limit: query.limit ?? 10,
        ...(before ? { before } : {}),
        ...(query.metadata ? { metadata: query.metadata as Record<string, unknown> } : {}),
        ...(query.checkpoint?.checkpoint_ns ? { checkpointNs: query.checkpoint.checkpoint_ns } : {}),
        ...(query.checkpoint?.checkpoint_id ? { checkpointId: query.checkpoint.checkpoint_id } : {}),
      }),
    );
  }

  async updateState(threadId: string, body: ThreadStateUpdateRequest): Promise<Outcome<ThreadStateUpdateResult, 'not_found' | 'invalid' | 'busy'>> {
    return this.deps.locks.run(threadId, async () => {
      const thread = await this.find(threadId);
      if (!thread) return threadNotFound(threadId);
      if ((await this.deps.engine.inflight(threadId)).length > 0) return fail('busy', 'Thread is busy');
      const written = await this.deps.checkpoints.update(thread, body);
      if (!written.ok) return written;
      await this.storeValues(thread, { updated_at: nowIso() });
      return ok({ checkpoint: written.value });
    });
  }

  async patchStateMetadata(threadId: string, metadata: Record<string, unknown>): Promise<Outcome<void, 'not_found'>> {
    return this.deps.locks.run(threadId, async () => {
      const thread = await this.find(threadId);
      if (!thread) return threadNotFound(threadId);
      return (await this.deps.checkpoints.patchLatestMetadata(thread, metadata))
        ? ok(undefined)
        : fail('not_found', `Thread ${threadId} has no checkpoint yet`);
    });
  }

  /** Stores the thread's values after its state changed outside a run (a run stores them as it ends, runEndRecord.ts). */
  private async storeValues(thread: ThreadRecord, also: Partial<ThreadRecord> = {}): Promise<ThreadRecord> {
    const values = await this.deps.stateReader.currentValues(thread);
    return (await this.deps.threads.update(thread.thread_id, (t) => ({ ...t, ...also, values }))) ?? thread;
  }

  private async view(record: ThreadRecord, include: { ttl?: boolean } = {}): Promise<Thread> {
    const values = await this.deps.stateReader.storedValues(record);
    // the embedded store answers the same frozen record until the thread changes: its view is
    // made once per version and frozen, so the reply check (writeReply.ts) validates it once
    // rather than on every read (a thread's state values come back as the same object while
    // its state is unchanged, or null before its first run)
    if (!Object.isFrozen(record)) return toApiThread(record, values, include);
    const ttl = Boolean(include.ttl);
    const cached = threadViews.get(record);
    if (cached && cached.values === values && cached.ttl === ttl) return cached.view;
    const view = Object.freeze(toApiThread(record, values, include));
    threadViews.set(record, { values, ttl, view });
    return view;
  }
}

/** The last view made of each frozen thread record, with the values and ttl flag it holds. */
const threadViews = new WeakMap<ThreadRecord, { values: Record<string, unknown> | null; ttl: boolean; view: Thread }>();

function ttlOf(ttl: ThreadTtl): ThreadTtlSetting {
  return { strategy: ttl.strategy ?? 'delete', ttl_minutes: ttl.ttl };
}

function ttlSetting(ttl: ThreadTtl | undefined): { ttl?: ThreadTtlSetting } {
  return ttl ? { ttl: ttlOf(ttl) } : {};
}
