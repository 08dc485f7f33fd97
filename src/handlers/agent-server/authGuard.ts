// Custom auth (auth.path) applied to every agent-server operation: the resource and action
// come from the operation's `x-auth` in the spec (codegen refuses an operation without one,
// so a new operation cannot go unguarded), the project's handler is asked, and its answer is
// enforced — a refusal is its status, a changed value is what gets written, filters hide what
// does not match (404 on reads, absent from searches).
import type { AuthEvent, OperationSpec } from '../../runtime/contract.ts';
import { operations } from '../../../generated/agent-server/operations.gen.ts';
import type { OperationHandler, Reply } from '../../runtime/handler.ts';
import { equalityFilters, isRefusal, matchesAuthFilters, type AuthFilters, type CustomAuth } from '../../runtime/customAuth.ts';
import type { ServiceFor } from './owner.ts';
import { authValuesOf } from './authValues.ts';

type Handler = OperationHandler;
type Params = Record<string, string | undefined>;

/** The `resource:action` an operation asks the project's handler about (its `x-auth` in the spec), by method and path. */
export function eventOf(op: Pick<OperationSpec, 'method' | 'path'>): string | undefined {
  const auth = operations.find((o) => o.method === op.method && o.path === op.path)?.auth;
  return typeof auth === 'object' ? `${auth.resource}:${auth.action}` : undefined;
}

/** Wraps each handler; the typed handler set goes in and comes out (one generic seam). */
export function guardHandlers<H extends object>(handlers: H, operations: readonly OperationSpec[], auth: CustomAuth, serviceFor: ServiceFor): H {
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const guarded: Partial<Record<string, Handler>> = {};
  for (const [operationId, value] of Object.entries(handlers)) {
    const handler = value as Handler;
    const op = byId.get(operationId);
    guarded[operationId] = typeof op?.auth === 'object' ? guard(operationId, op.auth, handler, auth, serviceFor) : handler;
  }
  return guarded as H;
}

function guard(operationId: string, { resource, action }: AuthEvent, handler: Handler, auth: CustomAuth, serviceFor: ServiceFor): Handler {
  const event = `${resource}:${action}`;
  return async (request, ctx) => {
    const user = ctx.user;
    if (!user) return handler(request, ctx);
    const path = request.path as Params;
    const body = request.body as Record<string, unknown> | undefined;
    let filters: AuthFilters | undefined;
    for (const { value, writeBack } of authValuesOf(operationId, { path, query: (request.query ?? {}) as Record<string, unknown>, body })) {
      const decided = await auth.authorize(event, value, user);
      if (isRefusal(decided)) return { status: decided.status, body: { detail: decided.detail }, headers: decided.headers };
      writeBack();
      filters = decided.filters ?? filters;
    }
    if (!filters) return handler(request, ctx);
    // the resource named in the path must match, else it does not exist for this caller
    const service = serviceFor(ctx);
    if (path.thread_id && resource === 'threads') {
      const thread = await service.threads.get(path.thread_id);
      if (thread.ok && !matchesAuthFilters(thread.value.metadata as Record<string, unknown>, filters))
        return notFound(`Thread with ID ${path.thread_id} not found`);
    }
    if (path.assistant_id && resource === 'assistants') {
      const assistant = await service.assistants.resolve(path.assistant_id);
      if (assistant && !matchesAuthFilters(assistant.metadata as Record<string, unknown>, filters)) return notFound('Assistant not found');
    }
    if (action === 'search' && body && typeof body === 'object' && resource !== 'store') {
      // equality filters narrow the search itself, so paging stays right
      body.metadata = { ...((body.metadata as object | undefined) ?? {}), ...equalityFilters(filters) };
    }
    const reply = await handler(request, ctx);
    return hideUnmatched(reply, resource, filters);
  };
}

/** Drops what the filters hide from a successful answer (lists, store items). */
function hideUnmatched(reply: Reply, resource: string, filters: AuthFilters): Reply {
  if (reply.status !== 200 || !('body' in reply) || reply.body === undefined) return reply;
  const visible = (item: Record<string, unknown>) =>
    matchesAuthFilters(
      resource === 'store' ? { ...(item.value as object), namespace: item.namespace, key: item.key } : (item.metadata as Record<string, unknown>),
      filters,
    );
  if (Array.isArray(reply.body)) return { ...reply, body: reply.body.filter((item) => visible(item as Record<string, unknown>)) };
  const body = reply.body as Record<string, unknown> | null;
  if (resource === 'store' && body && Array.isArray(body.items))
    return { ...reply, body: { ...body, items: body.items.filter((i) => visible(i as Record<string, unknown>)) } };
  if (resource === 'store' && body && 'key' in body && !visible(body)) return { ...reply, body: null };
  return reply;
}

const notFound = (detail: string) => ({ status: 404, body: { detail } });
