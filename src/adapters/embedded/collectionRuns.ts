// The runs in a collection of the store (the embedded store, which keeps a run's scanned fields
// in memory and the rest on disk, pagedCollections.ts): the owner is a closure reading only
// those fields (ListOptions.fields), ordering is in memory. On PostgreSQL the same collection
// is the runs table, and pgRuns.ts answers the pages, lists and summaries in SQL instead.
import type { RunStatus } from '../../../generated/agent-server/types.gen.ts';
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { RunsRepository } from '../../domain/ports/runsRepository.ts';
import { ownerOf, type RunRecord } from '../../domain/agent/records.ts';
import { summarizeRuns, type RunWindow, type RunWindowSummary } from '../../domain/agent/assistantRunMetrics.ts';

const IN_FLIGHT = ['pending', 'running'] as const;
/** What the owner scans read of a run. */
const OWNER: readonly string[] = ['owner'];
/** What an assistant's summary reads of a run. */
const SUMMARY: readonly string[] = ['owner', 'assistant_id', 'status', 'created_at', 'updated_at'];

export class CollectionRuns implements RunsRepository {
  protected readonly runs: Collection<RunRecord>;
  /** Where the run records are written as one step (Store.write). */
  private readonly writer: Pick<Store, 'write'>;

  constructor(store: Store) {
    this.writer = store;
    this.runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  }

  get(runId: string): Promise<RunRecord | undefined> {
    return this.runs.get(runId);
  }

  async onThread(threadId: string): Promise<RunRecord[]> {
    return (await this.runs.list({ where: { thread_id: threadId } })).sort((a, b) => (a.run_id < b.run_id ? -1 : 1));
  }

  async delete(runId: string): Promise<void> {
    await this.writer.write([{ collection: this.runs.name, id: runId, delete: true }]);
  }

  putOp(run: RunRecord): WriteOp {
    return { collection: this.runs.name, id: run.run_id, value: run };
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
}
