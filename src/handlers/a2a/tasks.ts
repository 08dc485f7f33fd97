// tasks/get, tasks/cancel and tasks/resubscribe: tasks are found by id alone (the stored
// task record knows its context and runs).
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import type { RpcContext } from '../../runtime/context.ts';
import type { AgentService } from '../../domain/agent/service.ts';
import { A2AErrors } from '../../domain/a2a/errors.ts';
import { isTerminal } from '../../domain/a2a/convert.ts';
import { currentRun, type A2ATaskService } from '../../domain/a2a/taskService.ts';
import { endpointAssistant } from './assistant.ts';
import { errorStream } from './streams.ts';

type Methods = A2AMethods<RpcContext>;

export function taskMethods(agent: AgentService, tasks: A2ATaskService): Pick<Methods, 'tasks/get' | 'tasks/cancel' | 'tasks/resubscribe'> {
  return {
    async 'tasks/get'(params, ctx) {
      const assistant = await endpointAssistant(agent, ctx);
      const record = await tasks.find(assistant, params.id, params.contextId);
      if (!record) return { error: A2AErrors.taskNotFound(params.id) };
      return { result: await tasks.view(assistant, record, { historyLength: params.historyLength }) };
    },

    async 'tasks/cancel'(params, ctx) {
      const assistant = await endpointAssistant(agent, ctx);
      const canceled = await tasks.cancel(assistant, params.id);
      return canceled.ok ? { result: canceled.value } : { error: canceled.error };
    },

    async 'tasks/resubscribe'(params, ctx) {
      const assistant = await endpointAssistant(agent, ctx);
      const record = await tasks.find(assistant, params.id);
      if (!record) return { stream: errorStream(A2AErrors.taskNotFound(params.id)) };
      const task = await tasks.view(assistant, record);
      if (isTerminal(task.status.state)) {
        return { stream: errorStream(A2AErrors.invalidParams(`Task ${params.id} is already ${task.status.state}; there is nothing to resubscribe to.`)) };
      }
      async function* events() {
        yield { result: task };
        for await (const event of tasks.follow(assistant, record!, currentRun(record!), ctx.signal)) yield { result: event };
      }
      return { stream: events() };
    },
  };
}
