// Mock mode's A2A gRPC binding (lf.a2a.v1.A2AService of spec/a2a.proto): each method answers the
// examples of the v1.0 JSON-RPC method of the same name (spec/a2a-v1.openrpc.json), one result
// or, for a streaming method, each in turn, after the call is admitted as the HTTP+JSON
// operation it stands for (the same keys as in real mode) and asks for A2A 1.0.
import type { GrpcApplication } from '../application.ts';
import type { GrpcAnswer, GrpcError, GrpcMethod } from '../transports/grpc/grpcServer.ts';
import type { RpcMethodHandler } from '../transports/jsonrpc.ts';
import type { RpcOutcome } from '../contract.ts';
import { statusName } from '../transports/http/googleRpcErrors.ts';
import { packagePath } from '../packageRoot.ts';
import { negotiate } from '../../shared/a2aVersion.ts';

/** The HTTP+JSON operation a gRPC method is admitted as: `a2aRest` and its name (the proto's and the OpenRPC's). */
const operationOf = (method: string) => `a2aRest${method}`;

export function mockA2AGrpc(methods: Readonly<Record<string, RpcMethodHandler>>): GrpcApplication {
  return {
    protoFile: packagePath('spec', 'a2a.proto'),
    service: 'lf.a2a.v1.A2AService',
    methods(admit) {
      const served: Record<string, GrpcMethod> = {};
      for (const [name, handler] of Object.entries(methods)) {
        served[name] = async (call) => {
          const tenant = typeof call.request.tenant === 'string' && call.request.tenant ? call.request.tenant : 'agent';
          const admission = await admit({
            operationId: operationOf(name),
            headers: call.headers,
            peer: call.peer,
            path: `/a2a/${encodeURIComponent(tenant)}/v1`,
          });
          if ('refused' in admission) {
            const detail = (admission.refused.body as { detail?: unknown } | undefined)?.detail;
            return { error: { code: statusName(admission.refused.status) as GrpcError['code'], message: typeof detail === 'string' ? detail : 'refused' } };
          }
          try {
            const asked = (call.headers['a2a-version'] ?? '').trim();
            if (negotiate(asked) !== '1.0') return { error: versionNotSupported(asked) };
            const outcome = (await handler(call.request as never, admission.ctx as never)) as
              RpcOutcome<unknown> | { stream: AsyncIterable<RpcOutcome<unknown>> };
            if ('stream' in outcome) return { stream: answers(outcome.stream) };
            return 'result' in outcome ? { result: outcome.result } : { error: { code: 'INTERNAL', message: 'no example' } };
          } finally {
            admission.release();
          }
        };
      }
      return served;
    },
  };
}

async function* answers(stream: AsyncIterable<RpcOutcome<unknown>>): AsyncGenerator<GrpcAnswer> {
  for await (const item of stream) if ('result' in item) yield { result: item.result };
}

const versionNotSupported = (asked: string): GrpcError => ({
  code: 'FAILED_PRECONDITION',
  message: `The requested A2A protocol version '${asked || '0.3'}' is not supported by this binding. Supported versions: 1.0`,
  details: [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'VERSION_NOT_SUPPORTED',
      domain: 'a2a-protocol.org',
      metadata: { requestedVersion: asked || '0.3' },
    },
  ],
});
