// The runs' named queries over a generic collection (the embedded store, which holds every
// run in memory): the owner is a closure, ordering is in memory.
import type { RunStatus } from '../../../generated/agent-server/types.gen.ts';
import type { Collection } from '../ports/store.ts';
import type { RunsRepository } from '../ports/runsRepository.ts';
import { ownerOf, type RunRecord } from './records.ts';
import { summarizeRuns, type RunWindow, type RunWindowSummary } from './assistantRunMetrics.ts';

export class CollectionRuns implements RunsRepository {
  constructor(private readonly runs: Collection<RunRecord>) {}

  async ofThread(threadId: string, page: { status?: string; offset: number; limit: number }): Promise<RunRecord[]> {
    const runs = await this.runs.list({ where: { thread_id: threadId, ...(page.status ? { status: page.status } : {}) } });
    runs.sort((a, b) => (a.run_id < b.run_id ? 1 : -1));
    return runs.slice(page.offset, page.offset + page.limit);
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
