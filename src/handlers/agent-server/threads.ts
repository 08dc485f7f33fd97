// Threads: create, search, count, get, patch, delete, copy, prune; state (latest, at a
// checkpoint, update, metadata patch) and history.
import type { ThreadService } from '../../domain/agent/service.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';
import { flag } from './replies.ts';

type ThreadOps =
  | 'createThread'
  | 'searchThreads'
  | 'countThreads'
  | 'getThread'
  | 'patchThread'
  | 'deleteThread'
  | 'copyThread'
  | 'pruneThreads'
  | 'getThreadState'
  | 'updateThreadState'
  | 'patchThreadState'
  | 'getThreadStateAtCheckpoint'
  | 'getThreadStateAtCheckpointPost'
  | 'getThreadHistory'
  | 'searchThreadHistory';

/** `include` arrives repeated (JS SDK) or comma-joined (Python SDK). */
const includes = (values: string[] | undefined, field: string) => (values ?? []).some((v) => v.split(',').includes(field));

export function threadHandlers(threadsFor: (ctx: RequestContext) => ThreadService): Pick<AgentServerAreaHandlers, ThreadOps> {
  return {
    async createThread({ body }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.create(body ?? {});
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async searchThreads({ body }, ctx) {
      const threads = threadsFor(ctx);
      const found = await threads.search(body ?? {});
      const select = body?.select;
      // as upstream: the thread's own fields among those named, in the thread's order
      return {
        status: 200,
        body: select ? found.map((thread) => Object.fromEntries(Object.entries(thread).filter(([field]) => select.includes(field)))) : found,
      };
    },
    async countThreads({ body }, ctx) {
      const threads = threadsFor(ctx);
      return { status: 200, body: await threads.count(body ?? {}) };
    },
    async getThread({ path, query }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.get(path.thread_id, { ttl: includes(query.include, 'ttl') });
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async patchThread({ path, headers, body }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.patch(path.thread_id, body);
      if (!outcome.ok) return failed(outcome.failure);
      return headers.prefer === 'return=minimal' ? { status: 204 } : { status: 200, body: outcome.value };
    },
    async deleteThread({ path }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.delete(path.thread_id);
      return outcome.ok ? { status: 204 } : failed(outcome.failure);
    },
    async copyThread({ path }, ctx) {
      const threads = threadsFor(ctx);
      // the id and metadata the auth handlers were shown for the copy (threads:create)
      const outcome = await threads.copy(path.thread_id, ctx.authorized);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async pruneThreads({ body }, ctx) {
      const threads = threadsFor(ctx);
      return { status: 200, body: { pruned_count: await threads.prune(body) } };
    },
    async getThreadState({ path, query }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.getState(path.thread_id, { subgraphs: flag(query.subgraphs) });
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async updateThreadState({ path, body }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.updateState(path.thread_id, body);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async patchThreadState({ path, body }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.patchStateMetadata(path.thread_id, body.metadata as Record<string, unknown>);
      return outcome.ok ? { status: 204 } : failed(outcome.failure);
    },
    async getThreadStateAtCheckpoint({ path, query }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.getStateAt(path.thread_id, { checkpoint_id: path.checkpoint_id }, { subgraphs: flag(query.subgraphs) });
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getThreadStateAtCheckpointPost({ path, body }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.getStateAt(path.thread_id, body.checkpoint, { subgraphs: body.subgraphs ?? false });
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async getThreadHistory({ path, query }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.history(path.thread_id, query);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async searchThreadHistory({ path, body }, ctx) {
      const threads = threadsFor(ctx);
      const outcome = await threads.history(path.thread_id, body ?? {});
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
  };
}
