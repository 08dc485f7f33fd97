// The run engine's records (ports/runEngineRecords.ts) over the store's `runs` and `threads`
// collections: the embedded store's, and PostgreSQL's (its collections are the tables).
import type { RunRecord, ThreadRecord } from '../../domain/agent/records.ts';
import type { RunEngineRecords } from '../../domain/ports/runEngineRecords.ts';
import type { Collection, Store, WriteOp } from '../../domain/ports/store.ts';

export class CollectionRunEngineRecords implements RunEngineRecords {
  private readonly runs: Collection<RunRecord>;
  private readonly threads: Collection<ThreadRecord>;

  constructor(private readonly store: Store) {
    this.runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
    this.threads = store.collection<ThreadRecord>('threads', { indexes: ['status'], containment: ['metadata'] });
  }

  run(runId: string): Promise<RunRecord | undefined> {
    return this.runs.get(runId);
  }

  thread(threadId: string): Promise<ThreadRecord | undefined> {
    return this.threads.get(threadId);
  }

  runsOfThread(threadId: string, status?: 'pending' | 'running'): Promise<RunRecord[]> {
    return this.runs.list({ where: status ? { thread_id: threadId, status } : { thread_id: threadId } });
  }

  async withdraw(runId: string, cancelled: RunRecord): Promise<boolean> {
    let withdrawn = false;
    await this.runs.update(runId, (current) => (current.status === 'pending' ? ((withdrawn = true), cancelled) : undefined));
    return withdrawn;
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

  deleteThread(threadId: string): WriteOp {
    return { collection: this.threads.name, id: threadId, delete: true };
  }

  write(ops: WriteOp[]): Promise<void> {
    return this.store.write(ops);
  }
}
