// a2aRpc — POST /a2a/{assistant_id}: the envelope goes to the JSON-RPC dispatcher of the A2A
// version the request asks for (A2A-Version header or parameter; none is 0.3). A version
// the endpoint does not serve is -32009 before anything else is read. An unknown assistant
// is an HTTP 404 (the endpoint does not exist), not a JSON-RPC error; it is checked once a
// valid request reaches its method, as the operation documents.
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import type * as V1 from '../../../generated/a2a-v1/types.gen.ts';
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { A2ATaskService } from '../../domain/a2a/taskService.ts';
import type { TaskPushConfigs } from '../../domain/a2a/pushConfigs.ts';
import type { ServiceFor } from '../agent-server/owner.ts';
import { extendContext, type RequestContext, type RpcContext } from '../../runtime/context.ts';
import { peekId, rpcErrorReply, rpcHttpReply, type JsonRpcDispatcher } from '../../runtime/transports/jsonrpc.ts';
import { failed } from '../agent-server/failures.ts';
import { fail } from '../../domain/outcome.ts';
import { a2aError, jsonRpcError } from './v1/errors.ts';
import { tooManyStreamsError } from './tooManyStreams.ts';
import { SERVED_VERSIONS, negotiate, requestedVersion, type A2AVersion } from '../../shared/a2aVersion.ts';

/** What an A2A method receives: the request context, the assistant its endpoint names, and the caller's tasks. */
export interface A2AContext extends RpcContext {
  assistant: Assistant;
  tasks: A2ATaskService;
  push: TaskPushConfigs;
  /** The caller's extended card of an assistant, when an operator configured one. */
  extendedCard?: (assistant: Assistant) => Promise<V1.AgentCard>;
}

/** The endpoint of an assistant that does not exist: a 404 naming it (A2A has no upstream JS wording to follow). */
export const unknownAssistant = (id: string) => failed(fail('not_found', `Assistant '${id}' not found`).failure);

export function a2aRpc(
  serviceFor: ServiceFor,
  scopeFor: (ctx: RequestContext) => { tasks: A2ATaskService; push: TaskPushConfigs; extendedCard?: (assistant: Assistant) => Promise<V1.AgentCard> },
  dispatchers: Record<A2AVersion, JsonRpcDispatcher<A2AContext>>,
): AgentServerHandlers<RequestContext>['a2aRpc'] {
  return async ({ path, body, headers, query }, ctx) => {
    const requested = requestedVersion(headers['a2a-version'], query['A2A-Version']);
    const version = negotiate(requested);
    if (!version) {
      const error = a2aError('VERSION_NOT_SUPPORTED', `A2A version '${requested}' is not supported: this endpoint serves ${SERVED_VERSIONS.join(' and ')}.`, {
        requestedVersion: requested,
        supportedVersions: SERVED_VERSIONS.join(','),
      });
      return rpcHttpReply(rpcErrorReply(peekId(body), jsonRpcError(error)));
    }
    const dispatcher = dispatchers[version];
    const prepared = dispatcher.prepare(body);
    if ('reply' in prepared) return rpcHttpReply(prepared.reply);
    const found = await serviceFor(ctx).assistants.get(path.assistant_id);
    if (!found.ok) return unknownAssistant(path.assistant_id);
    // a streaming method holds its request open: it takes a stream slot; a call answered once takes none
    const refused = dispatcher.streams(prepared.call.method) ? ctx.takeStreamSlot?.() : undefined;
    if (refused) return rpcHttpReply(dispatcher.refuse(prepared.call, tooManyStreamsError(refused)));
    return rpcHttpReply(await dispatcher.run(prepared.call, extendContext(ctx, { assistant: found.value, ...scopeFor(ctx) })));
  };
}
