// Threads: createThread, searchThreads, getThread, deleteThread, getThreadState.
import type { AgentDomain } from '../../domain/agent/agentService.ts';
import type { AgentServerAreaHandlers } from './index.ts';
import { failed, flag, notFound } from './replies.ts';

type ThreadOps = 'createThread' | 'searchThreads' | 'getThread' | 'deleteThread' | 'getThreadState';

const missing = (threadId: string) => notFound(`Thread with ID ${threadId} not found`);

export function threadHandlers(domain: AgentDomain): Pick<AgentServerAreaHandlers, ThreadOps> {
  return {
    async createThread({ body }) {
      const outcome = await domain.createThread(body ?? {});
      return outcome.ok ? { status: 200, body: outcome.value } : (failed(outcome.failure) as { status: 409; body: { detail: string } });
    },
    async searchThreads({ body }) {
      return { status: 200, body: await domain.searchThreads(body ?? {}) };
    },
    async getThread({ path }) {
      const thread = await domain.getThread(path.thread_id);
      return thread ? { status: 200, body: thread } : missing(path.thread_id);
    },
    async deleteThread({ path }) {
      return (await domain.deleteThread(path.thread_id)) ? { status: 204 } : missing(path.thread_id);
    },
    async getThreadState({ path, query }) {
      const state = await domain.getThreadState(path.thread_id, { subgraphs: flag(query.subgraphs) });
      return state ? { status: 200, body: state } : missing(path.thread_id);
    },
  };
}
