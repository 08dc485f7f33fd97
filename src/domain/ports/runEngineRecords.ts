// What the run engine reads and writes of runs and threads beside its claims: a run's and a
// thread's record, a thread's runs in flight, the withdrawal of a pending run, and the write
// operations it commits together (here, or through a claim: RunClaims.recordEnd). Answered
// over the store's collections on both stores (adapters/embedded/collectionRunEngineRecords.ts;
// on PostgreSQL the collections are its tables).
import type { RunRecord, ThreadRecord } from '../agent/records.ts';
import type { WriteOp } from './store.ts';

export interface RunEngineRecords {
  run(runId: string): Promise<RunRecord | undefined>;
  thread(threadId: string): Promise<ThreadRecord | undefined>;
  /** The thread's runs, only those in `status` when given. */
  runsOfThread(threadId: string, status?: 'pending' | 'running'): Promise<RunRecord[]>;
  /**
   * Takes a pending run out of the queue: it becomes `cancelled` only while it is still pending,
   * atomically against a claim taking it. Whether it did.
   */
  withdraw(runId: string, cancelled: RunRecord): Promise<boolean>;
  /** Changes the thread's record atomically (nothing when there is none). */
  updateThread(threadId: string, change: (thread: ThreadRecord) => ThreadRecord): Promise<void>;
  /** The operation that stores a run's record (one of several written together). */
  putRun(run: RunRecord): WriteOp;
  deleteRun(runId: string): WriteOp;
  putThread(thread: ThreadRecord): WriteOp;
  deleteThread(threadId: string): WriteOp;
  /** Applies the operations atomically. */
  write(ops: WriteOp[]): Promise<void>;
}
