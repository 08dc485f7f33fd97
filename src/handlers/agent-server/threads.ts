// Threads: create, search, count, get, patch, delete, copy, prune; state (latest, at a
// checkpoint, update, metadata patch) and history.
import type { AgentDomain } from '../../domain/agent/agentService.ts';
import type { AgentServerAreaHandlers } from './index.ts';
import { failed, flag, notFound } from './replies.ts';

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

const missing = (threadId: string) => notFound(`Thread with ID ${threadId} not found`);
const noCheckpoint = (threadId: string, checkpointId: string | undefined) => notFound(`Checkpoint ${checkpointId ?? '(latest)'} not found on thread ${threadId}`);

/** `include` arrives repeated (JS SDK) or comma-joined (Python SDK). */
const includes = (values: string[] | undefined, field: string) => (values ?? []).some((v) => v.split(',').includes(field));

export function threadHandlers(domain: AgentDomain): Pick<AgentServerAreaHandlers, ThreadOps> {
  return {
    async createThread({ body }) {
      const outcome = await domain.createThread(body ?? {});
      return outcome.ok ? { status: 200, body: outcome.value } : (failed(outcome.failure) as { status: 400 | 409; body: { detail: string } });
    },
    async searchThreads({ body }) {
      return { status: 200, body: await domain.searchThreads(body ?? {}) };
    },
    async countThreads({ body }) {
      return { status: 200, body: await domain.countThreads(body ?? {}) };
    },
    async getThread({ path, query }) {
      const thread = await domain.getThread(path.thread_id, { ttl: includes(query.include, 'ttl') });
      return thread ? { status: 200, body: thread } : missing(path.thread_id);
    },
    async patchThread({ path, headers, body }) {
      const thread = await domain.patchThread(path.thread_id, body);
      if (!thread) return missing(path.thread_id);
      return headers.prefer === 'return=minimal' ? { status: 204 } : { status: 200, body: thread };
    },
    async deleteThread({ path }) {
      return (await domain.deleteThread(path.thread_id)) ? { status: 204 } : missing(path.thread_id);
    },
    async copyThread({ path }) {
      const thread = await domain.copyThread(path.thread_id);
      return thread ? { status: 200, body: thread } : missing(path.thread_id);
    },
    async pruneThreads({ body }) {
      return { status: 200, body: { pruned_count: await domain.pruneThreads(body) } };
    },
    async getThreadState({ path, query }) {
      const state = await domain.getThreadState(path.thread_id, { subgraphs: flag(query.subgraphs) });
      return state ? { status: 200, body: state } : missing(path.thread_id);
    },
    async updateThreadState({ path, body }) {
      const outcome = await domain.updateThreadState(path.thread_id, body);
      return outcome.ok ? { status: 200, body: outcome.value } : (failed(outcome.failure) as { status: 400 | 404 | 409; body: { detail: string } });
    },
    async patchThreadState({ path, body }) {
      const result = await domain.patchThreadState(path.thread_id, body.metadata as Record<string, unknown>);
      if (result === 'missing') return missing(path.thread_id);
      return result === 'empty' ? notFound(`Thread ${path.thread_id} has no checkpoint yet`) : { status: 204 };
    },
    async getThreadStateAtCheckpoint({ path, query }) {
      const state = await domain.getThreadStateAt(path.thread_id, { checkpoint_id: path.checkpoint_id }, { subgraphs: flag(query.subgraphs) });
      if (state === undefined) return missing(path.thread_id);
      return state ? { status: 200, body: state } : noCheckpoint(path.thread_id, path.checkpoint_id);
    },
    async getThreadStateAtCheckpointPost({ path, body }) {
      const state = await domain.getThreadStateAt(path.thread_id, body.checkpoint, { subgraphs: body.subgraphs ?? false });
      if (state === undefined) return missing(path.thread_id);
      return state ? { status: 200, body: state } : noCheckpoint(path.thread_id, body.checkpoint.checkpoint_id);
    },
    async getThreadHistory({ path, query }) {
      const states = await domain.getThreadHistory(path.thread_id, query);
      return states ? { status: 200, body: states } : missing(path.thread_id);
    },
    async searchThreadHistory({ path, body }) {
      const states = await domain.getThreadHistory(path.thread_id, body ?? {});
      return states ? { status: 200, body: states } : missing(path.thread_id);
    },
  };
}
