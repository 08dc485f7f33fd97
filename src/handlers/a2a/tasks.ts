// tasks/get, tasks/cancel and tasks/resubscribe: tasks are found by id alone (the stored
// task record knows its context and runs).
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import { currentRun } from '../../domain/a2a/taskService.ts';
import type { A2AContext } from './rpc.ts';
import { failedStream, rpcFailed } from './failures.ts';

type Methods = A2AMethods<A2AContext>;

export function taskMethods(): Pick<Methods, 'tasks/get' | 'tasks/cancel' | 'tasks/resubscribe'> {
  return {
    async 'tasks/get'(params, ctx) {
      const { assistant, tasks } = ctx;
      const found = await tasks.get(assistant, params.id, { contextId: params.contextId, historyLength: params.historyLength });
      return found.ok ? { result: found.value } : rpcFailed(found.failure);
    },

    async 'tasks/cancel'(params, ctx) {
      const { assistant, tasks } = ctx;
      const canceled = await tasks.cancel(assistant, params.id);
      return canceled.ok ? { result: canceled.value } : rpcFailed(canceled.failure);
    },

    async 'tasks/resubscribe'(params, ctx) {
      const { assistant, tasks } = ctx;
      const found = await tasks.resubscribe(assistant, params.id);
      if (!found.ok) return { stream: failedStream(found.failure) };
      const { task, record } = found.value;
      async function* events() {
        yield { result: task };
        for await (const event of tasks.follow(assistant, record, currentRun(record), ctx.signal)) yield { result: event };
      }
      return { stream: events() };
    },
  };
}
