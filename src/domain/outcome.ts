// The one way a domain operation reports an expected failure: it returns a failed outcome
// with a *kind* and a human-readable detail. Only bugs throw. The domain knows no HTTP status
// and no JSON-RPC code: each area's handlers map kind → status (or code) in one table
// (src/handlers/*/failures.ts).
//
// Adding an operation: type its result as `Outcome<Value, 'not_found' | 'conflict'>`, naming
// exactly the kinds it can fail with, and return `ok(value)` / `fail('not_found', '…')`. The
// handler answers `outcome.ok ? {status: 200, body: outcome.value} : failed(outcome.failure)`;
// the compiler checks that every kind maps to a status the operation documents. A new kind
// goes in FailureKind below, and the compiler then points at each area's table.

export type FailureKind =
  /** The request is well-formed but breaks a rule. */
  | 'invalid'
  /** One field's value is not acceptable; `data.field` names it (answered like a schema violation). */
  | 'unprocessable'
  /** The addressed resource does not exist (or is not the caller's). */
  | 'not_found'
  /** The resource exists, or is in a state that forbids the change. */
  | 'conflict'
  /** The resource is working on something else (a thread with a run in flight). */
  | 'busy'
  /** The server does not offer this feature. */
  | 'unsupported'
  /** The content's media type is not accepted. */
  | 'unsupported_media'
  /** The credential does not open this resource (a listener's token that is not its own). */
  | 'unauthenticated'
  /** The caller sends faster than it may; `data.retry_after_s` says when to try again. */
  | 'rate_limited'
  /** The caller (a tenant) holds as many of these as its quota allows; `data.setting` names the quota's setting. */
  | 'quota_exceeded';

export interface Failure<K extends FailureKind = FailureKind> {
  kind: K;
  detail: string;
  /** Machine-readable context, for protocols that carry it (JSON-RPC `error.data`). */
  data?: Record<string, unknown>;
}

export type Outcome<T, K extends FailureKind = FailureKind> = { ok: true; value: T } | { ok: false; failure: Failure<K> };

export const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });

export const fail = <K extends FailureKind>(kind: K, detail: string, data?: Record<string, unknown>): { ok: false; failure: Failure<K> } => ({
  ok: false,
  failure: data === undefined ? { kind, detail } : { kind, detail, data },
});
