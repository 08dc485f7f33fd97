// The runs (ports/runStore.ts) in the store's `runs` and `threads` collections: the embedded
// store's, which keeps a run's scanned fields in memory and the rest on disk
// (embedded/pagedCollections.ts), and PostgreSQL's, whose collections are its tables
// (pgRunStore.ts answers the pages, lists, summaries and first reads in SQL there). An owner is
// a closure reading only the fields it needs (ListOptions.fields); ordering is in memory.
import type { RunStatus, ThreadStatus } from '../../../generated/agent-server/types.gen.ts';
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { RunStore } from '../../domain/ports/runStore.ts';
import { ownerOf, type RunRecord, type ThreadRecord } from '../../domain/agent/records.ts';
import { summarizeRuns, type RunWindow, type RunWindowSummary } from '../../domain/agent/runs/assistantRunMetrics.ts';
import type { FirstReadsKind, KnownReads } from '../../domain/agent/graphs/runContext.ts';
import { rootThreadNs } from '../../domain/agent/checkpoints/checkpointer.ts';
import { PlainStateStore } from '../../domain/agent/checkpoints/plainState.ts';
import { CollectionCheckpoints } from '../embedded/collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from '../embedded/collectionPlainCheckpoints.ts';

const IN_FLIGHT = ['pending', 'running'] as const;
/** What the owner scans read of a run. */
const OWNER: readonly string[] = ['owner'];
/** What an assistant's summary reads of a run. */
const SUMMARY: readonly string[] = ['owner', 'assistant_id', 'status', 'created_at', 'updated_at'];

export class CollectionRunStore implements RunStore {
  protected readonly runs: Collection<RunRecord>;
  private readonly threads: Collection<ThreadRecord>;
  /** What the first reads read through, made on the first (PostgreSQL reads them in SQL). */
  private reads?: { plain: PlainStateStore; checkpoints: CollectionCheckpoints };

  constructor(private readonly store: Store) {
    this.runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    this.threads = store.collection<ThreadRecord>('threads', { indexes: ['status'], containment: ['metadata'] });
  }

  get(runId: string): Promise<RunRecord | undefined> {
    return this.runs.get(runId);
  }

  async onThread(threadId: string): Promise<RunRecord[]> {
    return (await this.runs.list({ where: { thread_id: threadId } })).sort((a, b) => (a.run_id < b.run_id ? -1 : 1));
  }

  async idsOnThread(threadId: string): Promise<string[]> {
    return (await this.runs.list({ where: { thread_id: threadId }, fields: ['run_id'] })).map((run) => run.run_id).sort((a, b) => (a < b ? -1 : 1));
  }

  async firstOnThread(threadId: string, owner: string, matches: (run: RunRecord) => boolean): Promise<RunRecord | undefined> {
    // the owner's first run, found in one pass over what memory keeps of the thread's runs (no
    // object made for each): usually the one (a protocol thread's first run is a protocol run).
    // A record stored without an owner has no owner field to compare: those go the long way.
    if (owner !== '') {
      const [first] = await this.runs.list({ where: { thread_id: threadId, owner }, orderBy: 'run_id', limit: 1, fields: ['run_id'] });
      if (!first) return undefined;
      const run = await this.runs.get(first.run_id);
      if (run && matches(run)) return run;
    }
    const ids = (await this.runs.list({ where: { thread_id: threadId }, fields: ['run_id', ...OWNER] }))
      .filter((run) => ownerOf(run) === owner)
      .map((run) => run.run_id)
      .sort();
    for (const id of ids) {
      const run = await this.runs.get(id);
      if (run && matches(run)) return run;
    }
    return undefined;
  }

  runsOfThread(threadId: string, status?: 'pending' | 'running'): Promise<RunRecord[]> {
    return this.runs.list({ where: status ? { thread_id: threadId, status } : { thread_id: threadId } });
  }

  async ofThread(threadId: string, page: { status?: string; offset: number; limit: number }): Promise<RunRecord[]> {
    // the page's ids from what memory keeps, then only the page read
    const ids = (await this.runs.list({ where: { thread_id: threadId, ...(page.status ? { status: page.status } : {}) }, fields: ['run_id'] })).map(
      (run) => run.run_id,
    );
    ids.sort((a, b) => (a < b ? 1 : -1));
    const runs = await this.runs.getMany(ids.slice(page.offset, page.offset + page.limit));
    return runs.filter((run): run is RunRecord => run !== undefined);
  }

  async countInFlight(owner: string): Promise<number> {
    // the owner's field compared on each run as a second `where` (a tenant's runs always name
    // it): a filter read each run as an object of its own, a tenant's flood of runs allocating
    // one per run in flight for each run it asked for (issue 83)
    if (owner !== '') {
      const counts = await Promise.all(IN_FLIGHT.map((status) => this.runs.count({ where: { status, owner } })));
      return counts[0] + counts[1];
    }
    const mine = (run: RunRecord) => ownerOf(run) === owner;
    const counts = await Promise.all(IN_FLIGHT.map((status) => this.runs.count({ where: { status }, filter: mine, fields: OWNER })));
    return counts[0] + counts[1];
  }

  async withStatus(owner: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]> {
    const mine = (run: RunRecord) => ownerOf(run) === owner;
    // the owner's ids found from what memory keeps, then only their records read
    const ids = await Promise.all(
      statuses.map((status) => this.runs.list({ where: threadId ? { status, thread_id: threadId } : { status }, filter: mine, fields: ['run_id', ...OWNER] })),
    );
    const runs = await this.runs.getMany(ids.flat().map((run) => run.run_id));
    // as they are now: one changed in between is left out as a scan after the change would
    return runs.filter((run): run is RunRecord => run !== undefined && mine(run) && statuses.includes(run.status));
  }

  async summaryOfAssistant(window: RunWindow): Promise<RunWindowSummary> {
    const since = window.since.getTime();
    const inWindow = (run: RunRecord) => ownerOf(run) === window.owner && run.assistant_id === window.assistantId && Date.parse(run.created_at) >= since;
    return summarizeRuns(await this.runs.list({ filter: inWindow, fields: SUMMARY }));
  }

  async delete(runId: string): Promise<void> {
    await this.store.write([this.deleteRun(runId)]);
  }

  async withdraw(runId: string, cancelled: RunRecord): Promise<boolean> {
    let withdrawn = false;
    await this.runs.update(runId, (current) => (current.status === 'pending' ? ((withdrawn = true), cancelled) : undefined));
    return withdrawn;
  }

  thread(threadId: string): Promise<ThreadRecord | undefined> {
    return this.threads.get(threadId);
  }

  async updateThread(threadId: string, change: (thread: ThreadRecord) => ThreadRecord): Promise<void> {
    await this.threads.update(threadId, change);
  }

  putRun(run: RunRecord): WriteOp {
    return { collection: this.runs.name, id: run.run_id, value: run };
  }

  deleteRun(runId: string): WriteOp {
    return { collection: this.runs.name, id: runId, delete: true };
  }

  putThread(thread: ThreadRecord): WriteOp {
    return { collection: this.threads.name, id: thread.thread_id, value: thread };
  }

  settleThread(threadId: string, fields: Partial<ThreadRecord>, status: { settled: ThreadStatus; whileWaiting: ThreadStatus }): WriteOp {
    const set = { ...fields, status: status.settled };
    if (status.whileWaiting === status.settled) return { collection: this.threads.name, id: threadId, set };
    const whileAny = { collection: this.runs.name, where: { thread_id: threadId, status: 'pending' }, set: { status: status.whileWaiting } };
    return { collection: this.threads.name, id: threadId, set, whileAny };
  }

  deleteThread(threadId: string): WriteOp {
    return { collection: this.threads.name, id: threadId, delete: true };
  }

  write(ops: WriteOp[]): Promise<void> {
    return this.store.write(ops);
  }

  /** What the run itself would read first, through the same collections (plainState.ts headRecord, collectionCheckpoints.ts newest), side by side. */
  async firstReads(threadId: string, kind: Exclude<FirstReadsKind, undefined>): Promise<KnownReads> {
    this.reads ??= { plain: new PlainStateStore(new CollectionPlainCheckpoints(this.store)), checkpoints: new CollectionCheckpoints(this.store) };
    // both kinds: a LangGraph run reads the plain state too (plain runs on its thread go ahead of its input)
    const [plainHead, newest] = await Promise.all([
      this.reads.plain.headRecord(threadId),
      kind === 'langgraph' ? this.reads.checkpoints.newest(rootThreadNs(threadId)) : undefined,
    ]);
    return kind === 'langgraph' ? { plainHead, newestCheckpoint: newest ?? null } : { plainHead };
  }
}
