// message/send and message/stream: queue a run for the message, then wait for it (send)
// or follow it as task events (stream).
import type { A2AMethods } from '../../../generated/a2a/methods.gen.ts';
import type { A2AContext } from './rpc.ts';
import { failedStream, rpcFailed } from './failures.ts';

type Methods = A2AMethods<A2AContext>;

export function messageMethods(): Pick<Methods, 'message/send' | 'message/stream'> {
  return {
    async 'message/send'(params, ctx) {
      const { assistant, tasks } = ctx;
      const started = await tasks.start(assistant, params);
      if (!started.ok) return rpcFailed(started.failure);
      const { record, runId, submitted } = started.value;
      const historyLength = params.configuration?.historyLength;
      if (params.configuration?.blocking === false) return { result: submitted };
      await tasks.wait(record, runId, ctx.signal);
      return { result: await tasks.view(assistant, record, { historyLength }) };
    },

    async 'message/stream'(params, ctx) {
      const { assistant, tasks } = ctx;
      const started = await tasks.start(assistant, params);
      // an SSE frame rather than a JSON body: A2A clients expect text/event-stream here
      if (!started.ok) return { stream: failedStream(started.failure) };
      const { record, runId, submitted } = started.value;
      async function* events() {
        yield { result: submitted };
        for await (const event of tasks.follow(assistant, record, runId, ctx.signal)) yield { result: event };
      }
      return { stream: events() };
    },
  };
}
