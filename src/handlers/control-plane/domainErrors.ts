// The bridge from domain failures to HTTP: 400/404/409 with `{detail}`.
import { ApiError, type RequestContext } from '../../runtime/context.ts';
import { ControlPlaneError, type FailureKind } from '../../domain/control-plane/errors.ts';

const STATUS: Record<FailureKind, number> = { invalid: 400, not_found: 404, conflict: 409 };

/** Every control-plane operation requires credentials, so the runtime has set the tenant. */
export function tenantOf(ctx: RequestContext): string {
  if (!ctx.tenantId) throw new ApiError(401, 'Missing credentials: send an API key in X-Api-Key or Authorization: Bearer.');
  return ctx.tenantId;
}

type AnyHandler = (request: never, ctx: RequestContext) => Promise<unknown>;

export function withDomainErrors<H extends Record<string, AnyHandler>>(handlers: H): H {
  const wrapped = Object.entries(handlers).map(([id, handler]) => [
    id,
    async (request: never, ctx: RequestContext) => {
      try {
        return await handler(request, ctx);
      } catch (err) {
        if (err instanceof ControlPlaneError) throw new ApiError(STATUS[err.kind], err.detail);
        throw err;
      }
    },
  ]);
  return Object.fromEntries(wrapped) as H;
}
