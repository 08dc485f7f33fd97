// A2A v1.0 errors (§3.3.2, §5.4): one kind per A2A error type, and how each binding writes it —
// the JSON-RPC code with `error.data` (an array of google.rpc details, each with `@type`), the
// HTTP status and the gRPC status name. google.rpc.ErrorInfo carries the reason and the domain.
import type { RpcError } from '../../../runtime/contract.ts';

export type A2AErrorKind =
  | 'TASK_NOT_FOUND'
  | 'TASK_NOT_CANCELABLE'
  | 'PUSH_NOTIFICATION_NOT_SUPPORTED'
  | 'UNSUPPORTED_OPERATION'
  | 'CONTENT_TYPE_NOT_SUPPORTED'
  | 'INVALID_AGENT_RESPONSE'
  | 'EXTENDED_AGENT_CARD_NOT_CONFIGURED'
  | 'EXTENSION_SUPPORT_REQUIRED'
  | 'VERSION_NOT_SUPPORTED'
  | 'INVALID_PARAMS'
  | 'INTERNAL';

export interface FieldViolation {
  field: string;
  description: string;
}

export interface A2AError {
  kind: A2AErrorKind;
  message: string;
  /** ErrorInfo.metadata: string values only (google.rpc.ErrorInfo), e.g. `taskId`. */
  metadata?: Record<string, string>;
  /** For INVALID_PARAMS: a google.rpc.BadRequest detail. */
  fieldViolations?: FieldViolation[];
}

export const A2A_ERROR_DOMAIN = 'a2a-protocol.org';
export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

export const JSONRPC_CODE: Record<A2AErrorKind, number> = {
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: -32007,
  EXTENSION_SUPPORT_REQUIRED: -32008,
  VERSION_NOT_SUPPORTED: -32009,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,
};

export const HTTP_STATUS: Record<A2AErrorKind, number> = {
  TASK_NOT_FOUND: 404,
  TASK_NOT_CANCELABLE: 400,
  PUSH_NOTIFICATION_NOT_SUPPORTED: 400,
  UNSUPPORTED_OPERATION: 400,
  CONTENT_TYPE_NOT_SUPPORTED: 400,
  INVALID_AGENT_RESPONSE: 500,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 400,
  EXTENSION_SUPPORT_REQUIRED: 400,
  VERSION_NOT_SUPPORTED: 400,
  INVALID_PARAMS: 400,
  INTERNAL: 500,
};

/** gRPC status names (grpc-js `status[name]` gives the number). */
export const GRPC_STATUS: Record<A2AErrorKind, 'NOT_FOUND' | 'FAILED_PRECONDITION' | 'INVALID_ARGUMENT' | 'INTERNAL'> = {
  TASK_NOT_FOUND: 'NOT_FOUND',
  TASK_NOT_CANCELABLE: 'FAILED_PRECONDITION',
  PUSH_NOTIFICATION_NOT_SUPPORTED: 'FAILED_PRECONDITION',
  UNSUPPORTED_OPERATION: 'FAILED_PRECONDITION',
  CONTENT_TYPE_NOT_SUPPORTED: 'INVALID_ARGUMENT',
  INVALID_AGENT_RESPONSE: 'INTERNAL',
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: 'FAILED_PRECONDITION',
  EXTENSION_SUPPORT_REQUIRED: 'FAILED_PRECONDITION',
  VERSION_NOT_SUPPORTED: 'FAILED_PRECONDITION',
  INVALID_PARAMS: 'INVALID_ARGUMENT',
  INTERNAL: 'INTERNAL',
};

export const a2aError = (kind: A2AErrorKind, message: string, metadata?: Record<string, string>): A2AError => ({
  kind,
  message,
  ...(metadata ? { metadata } : {}),
});

/** The error's google.rpc details: ErrorInfo first, then BadRequest when fields are named. */
export function errorDetails(error: A2AError): Record<string, unknown>[] {
  const details: Record<string, unknown>[] = [
    { '@type': ERROR_INFO_TYPE, reason: error.kind, domain: A2A_ERROR_DOMAIN, ...(error.metadata ? { metadata: error.metadata } : {}) },
  ];
  if (error.fieldViolations?.length) details.push({ '@type': BAD_REQUEST_TYPE, fieldViolations: error.fieldViolations });
  return details;
}

/** The JSON-RPC error object (§9.5). */
export function jsonRpcError(error: A2AError): RpcError {
  return { code: JSONRPC_CODE[error.kind], message: error.message, data: errorDetails(error) };
}

/** ErrorInfo metadata from a domain failure's data: its string (and number) values. */
export function stringMetadata(data: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (!data) return undefined;
  const entries = Object.entries(data).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
  return entries.length ? Object.fromEntries(entries.map(([k, v]) => [k, String(v)])) : undefined;
}
