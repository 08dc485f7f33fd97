// Domain failures as control-plane replies: the one kind → HTTP status table of this area,
// answered with `{detail}`.
import type { Failure, FailureKind, Outcome } from '../../domain/outcome.ts';
import type { RequestContext } from '../../runtime/context.ts';

const STATUS = {
  invalid: 400,
  // a rule a field breaks (the tenant boundary): a 422 naming each field
  unprocessable: 422,
  not_found: 404,
  conflict: 409,
  busy: 409,
  unsupported: 501,
  unsupported_media: 415,
  unauthenticated: 401,
  rate_limited: 429,
  quota_exceeded: 403,
} as const satisfies Record<FailureKind, number>;

/** One problem of a 422, at the field it comes from (the spec's ValidationError). */
interface Issue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

type Failed<K extends FailureKind> = K extends unknown ? { status: (typeof STATUS)[K]; body: { detail: K extends 'unprocessable' ? Issue[] : string } } : never;

/** The reply for a failure; its status type is exactly the statuses of the kinds it can carry. */
export function failed<K extends FailureKind>(failure: Failure<K>): Failed<K> {
  if (failure.kind === 'unprocessable') {
    // answered like a schema violation, each problem at the field it comes from
    const problems = (failure.data?.problems ?? [{ loc: [], msg: failure.detail }]) as { loc: (string | number)[]; msg: string }[];
    return { status: 422, body: { detail: problems.map((p) => ({ loc: p.loc, msg: p.msg, type: 'refused' })) } } as Failed<K>;
  }
  return { status: STATUS[failure.kind], body: { detail: failure.detail } } as Failed<K>;
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
