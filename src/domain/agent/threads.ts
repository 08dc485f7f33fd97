// Threads: create, read, search, delete, and their state. Writes to one thread run under the
// thread's lock (shared with the run service), so they never interleave with a run's creation.
import type { Thread, ThreadCreateRequest, ThreadSearchRequest, ThreadState } from '../../../generated/agent-server/types.gen.ts';
import type { Collection } from '../../runtime/store/types.ts';
import type { KeyedLock } from '../keyedLock.ts';
import { fail, ok, type Outcome } from '../outcome.ts';
import { uuid4 } from './ids.ts';
import { toApiThread, type ThreadRecord } from './records.ts';
import { newThread, type RunLifecycle } from './runLifecycle.ts';
import { containsAll, sortBy } from './search.ts';
import type { ThreadService } from './service.ts';
import type { ThreadStateReader } from './threadState.ts';

export interface ThreadDeps {
  threads: Collection<ThreadRecord>;
  lifecycle: RunLifecycle;
  stateReader: ThreadStateReader;
  /** Per-thread lock, shared with the run service. */
  locks: KeyedLock;
}

export const threadNotFound = (threadId: string) => fail('not_found', `Thread with ID ${threadId} not found`);

export class Threads implements ThreadService {
  constructor(private readonly deps: ThreadDeps) {}

  async create(body: ThreadCreateRequest = {}): Promise<Outcome<Thread, 'conflict'>> {
    const threadId = body.thread_id ?? uuid4();
    return this.deps.locks.run(threadId, async () => {
      const existing = await this.deps.threads.get(threadId);
      if (existing) {
        return body.if_exists === 'do_nothing' ? ok(await this.view(existing)) : fail('conflict', 'Thread already exists');
      }
      const record = newThread(threadId, (body.metadata as Record<string, unknown>) ?? {});
      await this.deps.threads.insert(threadId, record);
      return ok(toApiThread(record, null));
    });
  }

  async get(threadId: string): Promise<Outcome<Thread, 'not_found'>> {
    const record = await this.deps.threads.get(threadId);
    return record ? ok(await this.view(record)) : threadNotFound(threadId);
  }

  async search(query: ThreadSearchRequest = {}): Promise<Thread[]> {
    const { threads, stateReader } = this.deps;
    const ids = query.ids ? new Set(query.ids) : null;
    const filter = (t: ThreadRecord) => (!ids || ids.has(t.thread_id)) && (!query.metadata || containsAll(t.metadata, query.metadata as Record<string, unknown>));
    const where = query.status ? { status: query.status } : undefined;
    const offset = query.offset ?? 0;
    const limit = query.limit ?? 10;
    const sortField = query.sort_by === 'state_updated_at' ? 'updated_at' : (query.sort_by ?? 'created_at');
    const order = query.sort_order ?? 'desc';
    let page: ThreadRecord[];
    if (query.values) {
      const all = sortBy(await threads.list({ where, filter }), sortField, order);
      const matching: ThreadRecord[] = [];
      for (const t of all) if (containsAll(await stateReader.values(t), query.values as Record<string, unknown>)) matching.push(t);
      page = matching.slice(offset, offset + limit);
    } else if (sortField === 'created_at') {
      // the store keeps creation order: page without sorting the whole collection
      page = await threads.list({ where, filter, reverse: order === 'desc', offset, limit });
    } else {
      page = sortBy(await threads.list({ where, filter }), sortField, order).slice(offset, offset + limit);
    }
    return Promise.all(page.map((t) => this.view(t)));
  }

  async delete(threadId: string): Promise<Outcome<void, 'not_found'>> {
    return this.deps.locks.run(threadId, async () => {
      if (!(await this.deps.threads.get(threadId))) return threadNotFound(threadId);
      await this.deps.lifecycle.removeThread(threadId);
      return ok(undefined);
    });
  }

  async getState(threadId: string, options: { subgraphs?: boolean } = {}): Promise<Outcome<ThreadState, 'not_found'>> {
    const record = await this.deps.threads.get(threadId);
    return record ? ok(await this.deps.stateReader.state(record, options)) : threadNotFound(threadId);
  }

  private async view(record: ThreadRecord): Promise<Thread> {
    return toApiThread(record, await this.deps.stateReader.values(record));
  }
}
