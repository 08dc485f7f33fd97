// Custom auth (auth.path) applied to every agent-server operation: the resource and action
// come from the operation's `x-auth` in the spec (codegen refuses an operation without one,
// so a new operation cannot go unguarded), the project's handler is asked, and its answer is
// enforced — a refusal is its status, a changed value is what gets written, filters hide what
// does not match (404 on reads, absent from searches). An operation that asks several events
// (copying a thread reads the source and creates the copy) asks them all, in upstream's order,
// before it runs: any refusal refuses it, and every event's filters confine it.
import type { AuthEvent, OperationSpec } from '../../runtime/contract.ts';
import { extendContext } from '../../runtime/context.ts';
import { operations } from '../../../generated/agent-server/operations.gen.ts';
import type { OperationHandler, Reply } from '../../runtime/handler.ts';
import { equalityFilters, isRefusal, matchesAuthFilters, type AuthFilters, type CustomAuth } from '../../runtime/security/customAuth.ts';
import type { ServiceFor } from './owner.ts';
import { authValuesOf } from './authValues.ts';
import { confinedStoreList, storeAuthMetadata } from './storeAuthScan.ts';

type Handler = OperationHandler;
type Params = Record<string, string | undefined>;

/** The `resource:action` events an operation asks the project's handlers about (its `x-auth` in the spec), by method and path. */
export function eventsOf(op: Pick<OperationSpec, 'method' | 'path'>): string[] {
  const auth = operations.find((o) => o.method === op.method && o.path === op.path)?.auth;
  return Array.isArray(auth) ? auth.map(({ resource, action }) => `${resource}:${action}`) : [];
}

/** Wraps each handler; the typed handler set goes in and comes out (one generic seam). */
export function guardHandlers<H extends object>(handlers: H, operations: readonly OperationSpec[], auth: CustomAuth, serviceFor: ServiceFor): H {
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const guarded: Partial<Record<string, Handler>> = {};
  for (const [operationId, value] of Object.entries(handlers)) {
    const handler = value as Handler;
    const op = byId.get(operationId);
    guarded[operationId] = Array.isArray(op?.auth) ? guard(operationId, op.auth, handler, auth, serviceFor) : handler;
  }
  return guarded as H;
}

function guard(operationId: string, events: AuthEvent[], handler: Handler, auth: CustomAuth, serviceFor: ServiceFor): Handler {
  const resource = events[0].resource;
  return async (request, ctx) => {
    const user = ctx.user;
    if (!user) return handler(request, ctx);
    const path = request.path as Params;
    const body = request.body as Record<string, unknown> | undefined;
    // an operation without a body still gets what its handlers decided (a copy's id and metadata)
    const scratch: Record<string, unknown> = {};
    const asked = {
      path,
      query: (request.query ?? {}) as Record<string, unknown>,
      body,
      caller: { user, headers: ctx.headers },
      threadMetadata: async (threadId: string) => {
        const metadata = await serviceFor(ctx).threads.metadata(threadId);
        return metadata.ok ? (metadata.value ?? {}) : undefined;
      },
    };
    const filters: AuthFilters[] = [];
    const searched: AuthFilters[] = [];
    for (const { resource: of, action } of events) {
      const event = `${of}:${action}`;
      for (const value of await authValuesOf(operationId, event, asked, body ?? scratch)) {
        const decided = await auth.authorize(event, value.value, user);
        if (isRefusal(decided)) return { status: decided.status, body: { detail: decided.detail }, headers: decided.headers };
        value.writeBack();
        if (!decided.filters || !value.filters) continue;
        filters.push(decided.filters);
        if (action === 'search') searched.push(decided.filters);
      }
    }
    if (body === undefined && Object.keys(scratch).length > 0) ctx = extendContext(ctx, { authorized: scratch });
    if (filters.length === 0) return handler(request, ctx);
    const matches = (metadata: unknown) => filters.every((f) => matchesAuthFilters(metadata as Record<string, unknown>, f));
    // the resource named in the path must match, else it does not exist for this caller
    const service = serviceFor(ctx);
    if (path.thread_id && resource === 'threads') {
      // its metadata alone: the thread's state (its every message) is not read for a check
      const metadata = await service.threads.metadata(path.thread_id);
      if (metadata.ok && !matches(metadata.value))
        return MISSED_IN_STREAM.has(operationId) ? threadMissedInStream() : notFound(`Thread with ID ${path.thread_id} not found`);
    }
    if (path.assistant_id && resource === 'assistants') {
      const assistant = await service.assistants.resolve(path.assistant_id);
      if (assistant && !matches(assistant.metadata)) return notFound('Assistant not found');
    }
    if (searched.length > 0 && body && typeof body === 'object' && resource !== 'store' && !path.thread_id) {
      // equality filters narrow the search itself, so paging stays right
      body.metadata = { ...((body.metadata as object | undefined) ?? {}), ...Object.assign({}, ...searched.map(equalityFilters)) };
    }
    const confined = await confinedStoreList(operationId, body, matches, () => handler(request, ctx));
    if (confined) return confined;
    const reply = await handler(request, ctx);
    return hideUnmatched(reply, resource, filters);
  };
}

/** Drops what the filters hide from a successful answer (lists, store items). */
function hideUnmatched(reply: Reply, resource: string, filters: AuthFilters[]): Reply {
  if (reply.status !== 200 || !('body' in reply) || reply.body === undefined) return reply;
  const visible = (item: Record<string, unknown>) => {
    const metadata = resource === 'store' ? storeAuthMetadata(item) : item.metadata;
    return filters.every((f) => matchesAuthFilters(metadata as Record<string, unknown>, f));
  };
  if (Array.isArray(reply.body)) return { ...reply, body: reply.body.filter((item) => visible(item as Record<string, unknown>)) };
  const body = reply.body as Record<string, unknown> | null;
  if (resource === 'store' && body && 'key' in body && !visible(body)) return { ...reply, body: null };
  return reply;
}

const notFound = (detail: string) => ({ status: 404, body: { detail } });

/**
 * Joining the stream of a run on a thread the filters hide answers as upstream does: the
 * stream opens and says, in its one `error` event, that the thread was not found (the SDK
 * yields it as a chunk). Nothing about the thread or the run is revealed either way.
 */
const MISSED_IN_STREAM = new Set(['joinRunStream']);

function threadMissedInStream(): Reply {
  async function* oneError() {
    yield { event: 'error', data: { error: 'Error', message: '404: Thread not found' } };
  }
  return { status: 200, stream: oneError() };
}
