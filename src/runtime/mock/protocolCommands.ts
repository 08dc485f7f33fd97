// Mock mode's answer to the thread protocol's commands (the operation marked
// `x-agentplane-protocol-commands`): read as spec/protocol.openrpc.json says, like the A2A
// methods are — params that do not fit their method are `invalid_argument`, a method the
// document does not name `unknown_command`, a method documented as `not_supported` that (it
// reads no params), any other the method's example result — in the
// protocol's envelope, so a client developed against the mock meets the real server's
// refusals. A request that asks for a documented response (`Prefer: code=404` …) gets it.
import { loadDocument } from '../../../generated/protocol/document.gen.js';
import type * as Protocol from '../../../generated/protocol/types.gen.ts';
import { paramsProblem } from '../../shared/protocolCommands.ts';
import type { OperationHandler } from '../handler.ts';

type Json = any;

/** Each method's first example result and whether it is documented as not supported, by method name. */
function exampleResults(): Map<string, { result: Record<string, unknown>; supported: boolean }> {
  const methods: Json[] = loadDocument().methods;
  return new Map(
    methods.map((m) => [
      m.name as string,
      { result: (m.examples?.[0]?.result?.value ?? {}) as Record<string, unknown>, supported: !m['x-protocol-errors']?.includes('not_supported') },
    ]),
  );
}

/** `asksDocumented`: whether the request asks for one of the operation's documented responses. */
export function mockProtocolCommands(
  documented: OperationHandler,
  asksDocumented: (ctx: Parameters<OperationHandler>[1], query: object) => boolean,
): OperationHandler {
  const results = exampleResults();
  return async (request, ctx) => {
    if (asksDocumented(ctx, request.query)) return documented(request, ctx);
    const { path, body } = request as { path: { thread_id: string }; body: Protocol.Command };
    const meta = { thread_id: path.thread_id, applied_through_seq: 0 };
    const method = results.get(body.method);
    const problem = method?.supported && paramsProblem(body.method, body.params);
    const error = (error: Protocol.ErrorCode, message: string): Protocol.CommandReply => ({ type: 'error', id: body.id, error, message, meta });
    const reply: Protocol.CommandReply = !method
      ? error('unknown_command', `Unknown protocol command: ${body.method}`)
      : !method.supported
        ? error('not_supported', `${body.method} is not supported by this server yet.`)
        : problem
          ? error('invalid_argument', problem)
          : { type: 'success', id: body.id, result: method.result, meta };
    return { status: 200, body: reply };
  };
}
