// Domain failures as agent-server replies: the one kind → HTTP status table of this area,
// answered with `{detail}` as the upstream server does.
import type { HTTPError, HTTPValidationError } from '../../../generated/agent-server/types.gen.ts';
import type { Failure, FailureKind } from '../../domain/outcome.ts';

const STATUS = {
  invalid: 400,
  unprocessable: 422,
  not_found: 404,
  conflict: 409,
  busy: 409,
  unsupported: 501,
  unsupported_media: 415,
  // no agent-server operation fails these ways today (listeners are the control plane's)
  unauthenticated: 401,
  rate_limited: 429,
  // a tenant's quota (domain/tenantQuotas.ts): forbidden until it deletes some or the operator raises it
  quota_exceeded: 403,
} as const satisfies Record<FailureKind, number>;

/** A failure's reply: `{detail}`, or for `unprocessable` the validation list naming the field. */
type Failed<K extends FailureKind> = K extends 'unprocessable' ? { status: 422; body: HTTPValidationError } : { status: (typeof STATUS)[K]; body: HTTPError };

/** The reply for a failure; its status type is exactly the statuses of the kinds it can carry. */
export function failed<K extends FailureKind>(failure: Failure<K>): Failed<K> {
  // the compiler cannot narrow K from failure.kind, so the two shapes are asserted here, once
  if (failure.kind === 'unprocessable') {
    const field = String(failure.data?.field ?? '');
    return { status: 422, body: { detail: [{ loc: ['body', field], msg: failure.detail, type: 'value_error' }] } } as Failed<K>;
  }
  return { status: STATUS[failure.kind], body: { detail: failure.detail } } as Failed<K>;
}
