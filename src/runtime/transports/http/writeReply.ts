// Writing a reply: JSON (serialised once per frozen view), text with its documented media
// type, a stream of Server-Sent Events, or nothing; and, when asked, checking the reply
// against the operation's documented statuses and schemas first.
import type { ServerResponse } from 'node:http';
import type { ValidatorTable } from '../../api.ts';
import type { OperationSpec } from '../../contract.ts';
import type { HttpReply } from '../../errors.ts';
import type { Reply } from '../../handler.ts';
import type { Logger } from '../../logging/logger.ts';
import type { ReplySerializers } from './replySerializers.ts';
import { writeSse } from '../sse.ts';

const JSON_TYPE = 'application/json';

/**
 * Writes `reply`; a promise only for a stream, written as its events come. A JSON or text reply
 * is written before this returns: an async function's promise, and the caller's await on it,
 * were a fixed cost of every request's answer.
 */
export function writeReply(
  res: ServerResponse,
  operation: OperationSpec,
  reply: Reply,
  options: { headOnly: boolean; log: Logger; serializers?: ReplySerializers },
): Promise<void> | undefined {
  const headers = definedHeaders(reply.headers);
  if ('stream' in reply) {
    return writeSse(res, reply.status, reply.stream, headers, (err) => {
      options.log.error('stream failed', { operationId: operation.operationId, err });
      return { event: 'error', data: { error: 'InternalServerError', message: 'The stream failed.' } };
    });
  }
  if ('text' in reply) {
    const contentType = operation.responses[String(reply.status)]?.contentType ?? 'text/plain';
    res.writeHead(reply.status, { 'Content-Type': `${contentType}; charset=utf-8`, 'Content-Length': Buffer.byteLength(reply.text), ...headers });
    res.end(options.headOnly ? undefined : reply.text);
    return undefined;
  }
  const serializers = options.serializers;
  const write = serializers ? serializers.writer(operation, reply.status) : JSON.stringify;
  // a JSON media type of the operation's own (application/a2a+json) is the one its replies say
  const documented = operation.responses[String(reply.status)]?.contentType;
  const typed = documented && documented !== JSON_TYPE && documented.endsWith('+json') ? { 'Content-Type': documented, ...headers } : headers;
  send(res, { status: reply.status, headers: typed, body: 'body' in reply ? reply.body : undefined }, options.headOnly, write);
  return undefined;
}

/** A JSON reply, or an empty one when it has no body; `write` turns the body into its text. */
export function send(res: ServerResponse, reply: HttpReply, headOnly = false, write: (body: unknown) => string = JSON.stringify): void {
  if (res.headersSent) return void res.end();
  if (reply.body === undefined) {
    res.writeHead(reply.status, reply.headers);
    res.end();
    return;
  }
  const text = serialize(reply.body, write);
  const length = Buffer.byteLength(text);
  res.writeHead(reply.status, { 'Content-Type': JSON_TYPE, 'Content-Length': length, ...reply.headers });
  res.end(headOnly ? undefined : text);
}

/** Optional documented headers a handler left undefined are not sent. */
function definedHeaders(headers: Reply['headers']): Record<string, string> | undefined {
  if (!headers) return undefined;
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = value;
  return out;
}

/**
 * Frozen bodies are immutable views (handlers freeze what they cache per stored record), so
 * their JSON is computed once per version (and per reply schema) rather than once per request.
 */
const serialized = new WeakMap<object, { write: (body: unknown) => string; text: string }[]>();
function serialize(body: unknown, write: (body: unknown) => string): string {
  if (body === null || typeof body !== 'object' || !Object.isFrozen(body)) return write(body);
  let texts = serialized.get(body);
  if (!texts) serialized.set(body, (texts = []));
  let cached = texts.find((t) => t.write === write);
  if (!cached) texts.push((cached = { write, text: write(body) }));
  return cached.text;
}

export class ReplyViolation extends Error {}

/** What is wrong with the reply when its status or body is not what the operation documents; null when it fits. */
export function replyViolation(operation: OperationSpec, reply: Reply, validators: ValidatorTable, log: Logger): string | null {
  const declared = operation.responses[String(reply.status)];
  if (!declared) return `${operation.operationId} returned undocumented status ${reply.status}`;
  if (declared.validator && 'body' in reply) {
    const validate = validators[declared.validator];
    if (validate && !fits(reply.body, validate)) {
      log.debug('invalid reply body', { body: reply.body });
      return `${operation.operationId} ${reply.status}: ${JSON.stringify(validate.errors?.slice(0, 5))}`;
    }
  }
  return null;
}

/**
 * Whether the body fits the validator. A frozen body (an immutable view, see serialize) that
 * fitted once is not checked again: a cached record's view is checked once per version, not
 * on every read of it.
 */
const fitted = new WeakMap<object, ValidatorTable[string][]>();
function fits(body: unknown, validate: ValidatorTable[string]): boolean {
  if (body === null || typeof body !== 'object') return validate(body) as boolean;
  if (!Object.isFrozen(body)) return fitsFreshPage(body, validate);
  const known = fitted.get(body);
  if (known?.includes(validate)) return true;
  if (!validate(body)) return false;
  if (known) known.push(validate);
  else fitted.set(body, [validate]);
  return true;
}

/**
 * A page of a list is a fresh object per request around views that are frozen
 * (`{ resources: [view, …], offset }`): the same page read again is made of the very same
 * views. Such a body — each own value a primitive, a frozen object or an array of those — fits
 * exactly when one made of the same values did, so the last few that fitted are kept per
 * validator and a body equal to one of them, value for value, is not validated again (a
 * dashboard polling its list would otherwise validate every view of the page on every poll).
 */
const RECENT_PAGES = 8;
const fittedPages = new WeakMap<ValidatorTable[string], object[]>();
function fitsFreshPage(body: object, validate: ValidatorTable[string]): boolean {
  if (!madeOfFrozenValues(body)) return validate(body) as boolean;
  const recent = fittedPages.get(validate);
  if (recent?.some((page) => sameValues(page, body))) return true;
  if (!validate(body)) return false;
  if (!recent) fittedPages.set(validate, [body]);
  else if (recent.unshift(body) > RECENT_PAGES) recent.pop();
  return true;
}

const settled = (value: unknown): boolean => value === null || typeof value !== 'object' || Object.isFrozen(value);

/** A page: a list of frozen views beside values that are primitives or frozen too. */
function madeOfFrozenValues(body: object): boolean {
  let views = false;
  for (const value of Object.values(body)) {
    if (settled(value)) continue;
    if (!Array.isArray(value) || !value.every(settled)) return false;
    views ||= value.some((item) => item !== null && typeof item === 'object');
  }
  return views;
}

function sameValues(a: object, b: object): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    const x = (a as Record<string, unknown>)[key];
    const y = (b as Record<string, unknown>)[key];
    if (x === y) continue;
    if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length || x.some((item, i) => item !== y[i])) return false;
  }
  return true;
}
