// The failures the runtime answers itself (errors.ts: `{detail}`, FastAPI's validation list) in
// the shape of an API that follows AIP-193: a google.rpc.Status as JSON, `{error: {code,
// status, message, details}}`, for the operations that declare it (`x-agentplane-errors`, the
// A2A HTTP+JSON binding). The HTTP status stays what the runtime chose, except that invalid
// input is 400 (INVALID_ARGUMENT) as AIP-193 has it, not FastAPI's 422.
import type { OperationSpec } from '../../contract.ts';
import type { HttpReply, ValidationErrorItem } from '../../errors.ts';

type Errors = NonNullable<OperationSpec['errors']>;

const ERROR_INFO = 'type.googleapis.com/google.rpc.ErrorInfo';
const BAD_REQUEST = 'type.googleapis.com/google.rpc.BadRequest';

/** google.rpc.Code names by HTTP status (google/rpc/code.proto's HTTP mapping). */
const STATUS_NAME: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  409: 'ABORTED',
  413: 'RESOURCE_EXHAUSTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
  507: 'RESOURCE_EXHAUSTED',
};

export const statusName = (status: number): string => STATUS_NAME[status] ?? (status >= 500 ? 'INTERNAL' : 'UNKNOWN');

/** A google.rpc.Status body for an HTTP status; `code` the google.rpc.Code name when the HTTP status alone does not say it (FAILED_PRECONDITION is 400 too). */
export function googleRpcBody(
  status: number,
  message: string,
  details: Record<string, unknown>[] = [],
  code = statusName(status),
): { error: Record<string, unknown> } {
  return { error: { code: status, status: code, message, details } };
}

/** A reply of the runtime's (errors.ts) as the operation's google.rpc.Status. */
export function asGoogleRpc(reply: HttpReply, errors: Errors): HttpReply {
  const headers = { ...reply.headers, 'Content-Type': errors.mediaType };
  const detail = (reply.body as { detail?: unknown } | undefined)?.detail;
  // the API's own reason for input it cannot take (A2A: INVALID_PARAMS, as its operations answer bad params)
  const invalid = errors.invalidReason ? [{ '@type': ERROR_INFO, reason: errors.invalidReason, domain: errors.domain }] : [];
  if (reply.status === 422 && Array.isArray(detail)) {
    const items = detail as ValidationErrorItem[];
    const fieldViolations = items.map((item) => ({ field: fieldOf(item.loc), description: item.msg }));
    const message = `Invalid request: ${fieldViolations.map((v) => `${v.field}: ${v.description}`).join('; ')}`;
    return { status: 400, headers, body: googleRpcBody(400, message, [...invalid, { '@type': BAD_REQUEST, fieldViolations }]) };
  }
  const message = typeof detail === 'string' ? detail : `HTTP ${reply.status}`;
  // a body that is no JSON (the runtime's other 400s are unreadable input too)
  if (reply.status === 400) return { status: 400, headers, body: googleRpcBody(400, message, invalid) };
  if (reply.status === 415) {
    // a body in a media type the binding does not read: A2A's ContentTypeNotSupportedError, as 400
    return { status: 400, headers, body: googleRpcBody(400, message, [{ '@type': ERROR_INFO, reason: 'CONTENT_TYPE_NOT_SUPPORTED', domain: errors.domain }]) };
  }
  return { status: reply.status, headers, body: googleRpcBody(reply.status, message) };
}

/** A validation item's location as a field path: `body.message.parts[0]` → `message.parts[0]`. */
function fieldOf(loc: (string | number)[]): string {
  const [where, ...rest] = loc;
  const path = rest.map((part, i) => (typeof part === 'number' ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
  return where === 'body' ? path || 'body' : path ? `${where}.${path}`.replace(/^query\./, '').replace(/^path\./, '') : String(where);
}
