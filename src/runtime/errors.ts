// Wire error bodies. HTTP errors are `{detail: string}` or, for validation, FastAPI's list
// `{detail: [{loc, msg, type}]}`; the JSON-RPC endpoint uses JSON-RPC error objects.
import type { RpcError, ValidationIssue } from './contract.ts';
import { StoreWriteError } from '../shared/storeErrors.ts';

export interface ValidationErrorItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface HttpReply {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export const httpError = (status: number, detail: string, headers?: Record<string, string>): HttpReply => ({
  status,
  headers,
  body: { detail },
});

/**
 * The same refusal for every request that earns it, made once and frozen: its JSON is then
 * written once too (writeReply.ts, socketDoor.ts), where a flood of refused requests made a
 * reply, its detail and its text each time (issue 83).
 */
export const fixedError = (status: number, detail: string, headers?: Record<string, string>): HttpReply =>
  Object.freeze({ status, ...(headers ? { headers: Object.freeze({ ...headers }) } : {}), body: Object.freeze({ detail }) });

/** Seconds a client is told to wait (Retry-After) before trying again a request the store could not serve. */
export const STORE_RETRY_AFTER_S = 2;

/**
 * A request the store refused, as its HTTP answer: 507 when the data directory's disk is full,
 * 503 with Retry-After for other I/O errors and a database that cannot be reached (retrying
 * later can succeed), 500 for a value the store cannot write as JSON. Undefined for any other error.
 */
export function storeErrorReply(err: unknown): HttpReply | undefined {
  const refused = err instanceof StoreWriteError ? err : err instanceof Error && err.cause instanceof StoreWriteError ? err.cause : undefined;
  if (!refused) return undefined;
  if (refused.failure === 'unavailable') return httpError(503, refused.message, { 'Retry-After': String(STORE_RETRY_AFTER_S) });
  return httpError(refused.failure === 'no_space' ? 507 : 500, refused.message);
}

export const validationError = (items: ValidationErrorItem[]): HttpReply => ({ status: 422, body: { detail: items } });

/** Ajv keyword → the pydantic-style `type` a FastAPI client expects to see. */
const TYPE_BY_KEYWORD: Record<string, string> = {
  required: 'missing',
  enum: 'enum',
  const: 'literal_error',
  minimum: 'greater_than_equal',
  exclusiveMinimum: 'greater_than',
  maximum: 'less_than_equal',
  exclusiveMaximum: 'less_than',
  minLength: 'string_too_short',
  maxLength: 'string_too_long',
  pattern: 'string_pattern_mismatch',
  minItems: 'too_short',
  maxItems: 'too_long',
  additionalProperties: 'extra_forbidden',
  uniqueItems: 'unique_items',
};

function issueType(issue: ValidationIssue): string {
  if (issue.keyword === 'type') {
    const t = String(issue.params.type).split(',')[0];
    return (
      (
        {
          integer: 'int_type',
          number: 'float_type',
          boolean: 'bool_type',
          object: 'dict_type',
          array: 'list_type',
          string: 'string_type',
          null: 'none_required',
        } as Record<string, string>
      )[t] ?? 'type_error'
    );
  }
  if (issue.keyword === 'format') return issue.params.format === 'uuid' ? 'uuid_parsing' : `${issue.params.format}_format`.replace(/-/g, '_');
  return TYPE_BY_KEYWORD[issue.keyword] ?? 'value_error';
}

function issueMessage(issue: ValidationIssue): string {
  switch (issue.keyword) {
    case 'required':
      return 'Field required';
    case 'additionalProperties':
      return 'Extra inputs are not permitted';
    case 'propertyNames':
      return 'Invalid property name';
    case 'enum':
      return `Input should be ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'format':
      return issue.params.format === 'uuid' ? 'Input should be a valid UUID' : `Input should match format "${issue.params.format}"`;
    case 'type':
      return `Input should be a valid ${String(issue.params.type).split(',').join(' or ')}`;
    default:
      return issue.message ? `Input ${issue.message}` : 'Invalid input';
  }
}

/** Turns ajv issues into FastAPI-style items under `where` (path, query, header, body). */
export function toValidationItems(where: string, issues: ValidationIssue[]): ValidationErrorItem[] {
  const items: ValidationErrorItem[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    // a failing property name is reported once, by its propertyNames issue, not per rule
    if ((issue as { propertyName?: string }).propertyName !== undefined && issue.keyword !== 'propertyNames') continue;
    const loc: (string | number)[] = [where];
    for (const part of issue.instancePath.split('/').slice(1)) {
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      loc.push(/^\d+$/.test(key) ? Number(key) : key);
    }
    if (issue.keyword === 'required') loc.push(issue.params.missingProperty);
    if (issue.keyword === 'additionalProperties') loc.push(issue.params.additionalProperty);
    if (issue.keyword === 'propertyNames') loc.push(issue.params.propertyName);
    const item = { loc, msg: issueMessage(issue), type: issueType(issue) };
    const key = JSON.stringify(item);
    if (seen.has(key)) continue;
    seen.add(key);
    items.push(item);
  }
  return items;
}

/** The JSON-RPC envelope errors; method-specific A2A codes live with the A2A domain. */
export const RPC = {
  parseError: (message = 'Parse error'): RpcError => ({ code: -32700, message }),
  invalidRequest: (message = 'Invalid Request'): RpcError => ({ code: -32600, message }),
  methodNotFound: (method: string): RpcError => ({ code: -32601, message: `Method not found: ${method}` }),
  invalidParams: (message: string, data?: unknown): RpcError => ({ code: -32602, message, ...(data === undefined ? {} : { data }) }),
  internal: (message = 'Internal error'): RpcError => ({ code: -32603, message }),
};
