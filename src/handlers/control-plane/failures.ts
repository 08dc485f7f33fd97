// Domain failures as control-plane replies: the one kind → HTTP status table of this area,
// answered with `{detail}`.
import type { Failure, FailureKind, Outcome } from '../../domain/outcome.ts';
import type { RequestContext } from '../../runtime/context.ts';

const STATUS = {
  invalid: 400,
  // no control-plane operation fails this way today; a schema-like 422 if one does
  unprocessable: 422,
  not_found: 404,
  conflict: 409,
  busy: 409,
  unsupported: 501,
  unsupported_media: 415,
  unauthenticated: 401,
  rate_limited: 429,
} as const satisfies Record<FailureKind, number>;

type Failed<K extends FailureKind> = { status: (typeof STATUS)[K]; body: { detail: string } };

/** The reply for a failure; its status type is exactly the statuses of the kinds it can carry. */
export function failed<K extends FailureKind>(failure: Failure<K>): Failed<K> {
  return { status: STATUS[failure.kind], body: { detail: failure.detail } };
}

/** `status` with the value as body, or the failure's reply. */
export function answer<S extends number, T, K extends FailureKind>(status: S, outcome: Outcome<T, K>): { status: S; body: T } | Failed<K> {
  return outcome.ok ? { status, body: outcome.value } : failed(outcome.failure);
}

/** Every control-plane operation requires credentials, so the runtime has set the tenant. */
export function tenantOf(ctx: RequestContext): string {
  if (!ctx.tenantId) throw new Error(`${ctx.operationId} reached its handler without a tenant: its security requirement is missing`);
  return ctx.tenantId;
}
