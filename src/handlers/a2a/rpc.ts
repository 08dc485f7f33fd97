// a2aRpc — POST /a2a/{assistant_id}: the envelope goes to the JSON-RPC dispatcher. An
// unknown assistant is an HTTP 404 (the endpoint does not exist), not a JSON-RPC error;
// it is checked once a valid request reaches its method, as the operation documents.
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { A2ATaskService } from '../../domain/a2a/taskService.ts';
import type { ServiceFor } from '../agent-server/owner.ts';
import { extendContext, type RequestContext, type RpcContext } from '../../runtime/context.ts';
import { rpcHttpReply, type JsonRpcDispatcher } from '../../runtime/jsonrpc.ts';
import { failed } from '../agent-server/failures.ts';
import { fail } from '../../domain/outcome.ts';

/** What an A2A method receives: the request context, the assistant its endpoint names, and the caller's tasks. */
export interface A2AContext extends RpcContext {
  assistant: Assistant;
  tasks: A2ATaskService;
}

/** The endpoint of an assistant that does not exist: a 404 naming it (A2A has no upstream JS wording to follow). */
export const unknownAssistant = (id: string) => failed(fail('not_found', `Assistant '${id}' not found`).failure);

export function a2aRpc(
  serviceFor: ServiceFor,
  tasksFor: (ctx: RequestContext) => A2ATaskService,
  dispatcher: JsonRpcDispatcher<A2AContext>,
): AgentServerHandlers<RequestContext>['a2aRpc'] {
  return async ({ path, body }, ctx) => {
    const prepared = dispatcher.prepare(body);
    if ('reply' in prepared) return rpcHttpReply(prepared.reply);
    const found = await serviceFor(ctx).assistants.get(path.assistant_id);
    if (!found.ok) return unknownAssistant(path.assistant_id);
    return rpcHttpReply(await dispatcher.run(prepared.call, extendContext(ctx, { assistant: found.value, tasks: tasksFor(ctx) })));
  };
}
