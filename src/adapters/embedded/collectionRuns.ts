// The runs in a collection of the store (the embedded store, which holds every run in
// memory): the owner is a closure, ordering is in memory. On PostgreSQL the same collection
// is the runs table, and pgRuns.ts answers the pages, lists and summaries in SQL instead.
import type { RunStatus } from '../../../generated/agent-server/types.gen.ts';
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';
import type { RunsRepository } from '../../domain/ports/runsRepository.ts';
import { ownerOf, type RunRecord } from '../../domain/agent/records.ts';
import { summarizeRuns, type RunWindow, type RunWindowSummary } from '../../domain/agent/assistantRunMetrics.ts';

const IN_FLIGHT = ['pending', 'running'] as const;

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
    const runs = await this.runs.list({ where: { thread_id: threadId, ...(page.status ? { status: page.status } : {}) } });
    runs.sort((a, b) => (a.run_id < b.run_id ? 1 : -1));
    return runs.slice(page.offset, page.offset + page.limit);
  }

  async countInFlight(owner: string): Promise<number> {
    const mine = (run: RunRecord) => ownerOf(run) === owner;
    const counts = await Promise.all(IN_FLIGHT.map((status) => this.runs.count({ where: { status }, filter: mine })));
    return counts[0] + counts[1];
  }

  async withStatus(owner: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]> {
    const mine = (run: RunRecord) => ownerOf(run) === owner;
    const lists = await Promise.all(statuses.map((status) => this.runs.list({ where: threadId ? { status, thread_id: threadId } : { status }, filter: mine })));
    return lists.flat();
  }

  async summaryOfAssistant(window: RunWindow): Promise<RunWindowSummary> {
    const since = window.since.getTime();
    const inWindow = (run: RunRecord) => ownerOf(run) === window.owner && run.assistant_id === window.assistantId && Date.parse(run.created_at) >= since;
    return summarizeRuns(await this.runs.list({ filter: inWindow }));
  }
}
