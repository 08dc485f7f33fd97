// The A2A v1.0 bindings beside JSON-RPC: HTTP+JSON (the a2aRest* operations) and gRPC (the
// area's gRPC service), each over the v1.0 operations the JSON-RPC endpoint runs, on the
// caller's own view of assistants and tasks; and the card's entries for them.
import type { AgentServerHandlers } from '../../../generated/agent-server/operations.gen.ts';
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import type { GrpcApplication } from '../../runtime/application.ts';
import type { RequestContext } from '../../runtime/context.ts';
import type { ProjectConfig } from '../../runtime/config.ts';
import { rpcDocumentV1 } from '../../runtime/api.ts';
import { defaultAssistantId } from '../../domain/a2a/card.ts';
import type { ServiceFor } from '../agent-server/owner.ts';
import type { V1Scope } from './v1/operations.ts';
import { JSONRPC_V03, JSONRPC_V1, jsonRpcUrl, type A2AInterface, type A2AInterfaces } from './v1/card.ts';
import { a2aGrpc } from './grpc.ts';
import { restHandlers, type RestOperationId } from './rest.ts';
import type { V1Door } from './v1Binding.ts';

export interface A2ABindings {
  handlers: Pick<AgentServerHandlers<RequestContext>, RestOperationId>;
  /** Absent when A2A is switched off (`http.disable_a2a`): no gRPC port then. */
  grpc?: GrpcApplication;
}

/** `<base>/a2a/<assistant id as given>/v1`: the HTTP+JSON binding's base (its paths hang under it). */
export const REST_V1: A2AInterface = { binding: 'HTTP+JSON', version: '1.0', url: (at) => `${jsonRpcUrl(at)}/v1` };

/** The gRPC port on the host the card's caller reached (one port for every assistant, named by `tenant`). */
export const grpcV1 = (port: number): A2AInterface => ({
  binding: 'GRPC',
  version: '1.0',
  url: ({ baseUrl }) => `${new URL(baseUrl).hostname}:${port}`,
  tenant: ({ assistantId }) => assistantId,
});

/** The card's interfaces in order of preference; gRPC only while its port serves. */
export function servedInterfaces(grpcPort: () => number | null): A2AInterfaces {
  return () => {
    const port = grpcPort();
    return [JSONRPC_V1, REST_V1, ...(port === null ? [] : [grpcV1(port)]), JSONRPC_V03];
  };
}

export function a2aBindings(v1Scope: (ctx: RequestContext, assistant: Assistant) => V1Scope, serviceFor: ServiceFor, project: ProjectConfig): A2ABindings {
  const door: V1Door = {
    async assistant(ctx, id) {
      const found = await serviceFor(ctx).assistants.get(id);
      return found.ok ? found.value : undefined;
    },
    scope: v1Scope,
  };
  const params = rpcDocumentV1.params;
  return {
    handlers: restHandlers(door, params),
    ...(project.http?.disable_a2a ? {} : { grpc: a2aGrpc(door, params, () => defaultAssistantId(project)) }),
  };
}
