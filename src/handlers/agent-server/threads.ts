// Threads: createThread, searchThreads, getThread, deleteThread, getThreadState.
import type { ThreadService } from '../../domain/agent/service.ts';
import type { AgentServerAreaHandlers } from './area.ts';
import { failed } from './failures.ts';
import { flag } from './replies.ts';

type ThreadOps = 'createThread' | 'searchThreads' | 'getThread' | 'deleteThread' | 'getThreadState';

export function threadHandlers(threads: ThreadService): Pick<AgentServerAreaHandlers, ThreadOps> {
  return {
    async createThread({ body }) {
      const outcome = await threads.create(body ?? {});
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async searchThreads({ body }) {
      return { status: 200, body: await threads.search(body ?? {}) };
    },
    async getThread({ path }) {
      const outcome = await threads.get(path.thread_id);
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
    async deleteThread({ path }) {
      const outcome = await threads.delete(path.thread_id);
      return outcome.ok ? { status: 204 } : failed(outcome.failure);
    },
    async getThreadState({ path, query }) {
      const outcome = await threads.getState(path.thread_id, { subgraphs: flag(query.subgraphs) });
      return outcome.ok ? { status: 200, body: outcome.value } : failed(outcome.failure);
    },
  };
}
