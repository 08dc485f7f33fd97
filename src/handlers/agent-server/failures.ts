// Domain failures as agent-server replies: the one kind → HTTP status table of this area,
// answered with `{detail}` as the upstream server does.
import type { Failure, FailureKind } from '../../domain/outcome.ts';

const STATUS = {
  invalid: 400,
  not_found: 404,
  conflict: 409,
  busy: 409,
  unsupported: 501,
  unsupported_media: 415,
} as const satisfies Record<FailureKind, number>;

/** The reply for a failure; its status type is exactly the statuses of the kinds it can carry. */
export function failed<K extends FailureKind>(failure: Failure<K>): { status: (typeof STATUS)[K]; body: { detail: string } } {
  return { status: STATUS[failure.kind], body: { detail: failure.detail } };
}
