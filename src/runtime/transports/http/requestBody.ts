// Reading a request: its body (bounded in size and nesting depth, without an await when
// there is none) and its query string. Nothing here knows operations or schemas.
import type { IncomingMessage } from 'node:http';
import type { ValidationErrorItem } from '../../errors.ts';

export const TOO_LARGE = Symbol('too-large');
/** How deeply a request body may nest objects and arrays unless configured otherwise. */
export const DEFAULT_MAX_BODY_DEPTH = 100;
/**
 * The one media type a request body may have: `application/json`, optionally with
 * `charset=utf-8` (case-insensitive), as the official clients send it. Anything else —
 * no Content-Type, `text/plain`, `application/json-seq`, `charset=utf-16` — is refused, so
 * that a cross-site "simple" POST (which cannot set application/json without a CORS
 * preflight) is never read as JSON.
 */
const JSON_BODY = /^application\/json[ \t]*(;[ \t]*charset[ \t]*=[ \t]*("utf-8"|utf-8)[ \t]*)?$/i;

export const isJsonContentType = (value: string | undefined): boolean => value !== undefined && JSON_BODY.test(value);

/** An HTML form's body (OperationSpec.body.form), optionally with `charset=utf-8`: what a browser posts. */
const FORM_BODY = /^application\/x-www-form-urlencoded[ \t]*(;[ \t]*charset[ \t]*=[ \t]*("utf-8"|utf-8)[ \t]*)?$/i;

export const isFormContentType = (value: string | undefined): boolean => value !== undefined && FORM_BODY.test(value);

/** The 415 detail for a body sent as `contentType`. */
export const unsupportedMediaType = (contentType: string | undefined, accepted: readonly string[] = ['application/json']): string =>
  `Unsupported Media Type: send the body as ${accepted.join(' or ')} (optionally with charset=utf-8), not ${contentType ? contentType : 'without a Content-Type'}.`;

/** Whether a request carries a body to read: an empty or blank one counts as none. */
export const isBlank = (raw: string | undefined): boolean => raw === undefined || raw.trim() === '';

/** Most requests carry no body; telling so up front spares them an await. */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length === undefined) return req.headers['transfer-encoding'] !== undefined;
  return length !== '0';
}

export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared === 0) return Promise.resolve(undefined);
  if (declared > limit) {
    req.resume();
    return Promise.resolve(TOO_LARGE);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        req.removeAllListeners('data');
        req.resume();
        resolve(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    });
    // a body of one chunk (most: a POST /threads' `{}`) decoded from it, not from a copy Buffer.concat makes first
    req.on('end', () => resolve(size === 0 ? undefined : (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Where JSON text first opens an object or array deeper than `limit` levels, or -1. One
 * pass over the characters, no recursion and nothing parsed (brackets inside strings do
 * not count), so a hostile body is refused before it is parsed, validated or stored —
 * values nested thousands deep overflow the stack of every recursive walk after it
 * (validation, serialisation, the store's snapshots).
 */
export function depthExceededAt(text: string, limit: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip the string: up to the next quote not escaped by a backslash
      for (i += 1; i < text.length; i += 1) {
        const s = text.charCodeAt(i);
        if (s === 0x5c) i += 1;
        else if (s === 0x22) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > limit) return i;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return -1;
}

/** The 422 item of a body nested deeper than `limit`. */
export const tooDeep = (limit: number, at: number): ValidationErrorItem => ({
  loc: ['body'],
  msg: `Input nests objects and arrays deeper than ${limit} levels (at character ${at}); the limit is AGENTPLANE_MAX_BODY_DEPTH`,
  type: 'too_deep',
});

/** Parses JSON text no deeper than `maxDepth`: the value, or why it cannot be read. */
export function parseJson(text: string, maxDepth: number): { value: unknown } | { tooDeep: number } | { invalid: number } {
  const at = depthExceededAt(text, maxDepth);
  if (at >= 0) return { tooDeep: at };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    const position = /position (\d+)/.exec((err as Error).message);
    return { invalid: position ? Number(position[1]) : 0 };
  }
}

/** A JSON body (its media type already checked), or the one problem that stops it from being read (FastAPI's item shape). */
export function parseBody(raw: string | undefined, required: boolean, maxDepth = DEFAULT_MAX_BODY_DEPTH): { value: unknown } | { issue: ValidationErrorItem } {
  if (raw === undefined || isBlank(raw)) {
    if (required) return { issue: { loc: ['body'], msg: 'Field required', type: 'missing' } };
    return { value: undefined };
  }
  const parsed = parseJson(raw, maxDepth);
  if ('tooDeep' in parsed) return { issue: tooDeep(maxDepth, parsed.tooDeep) };
  if ('invalid' in parsed) return { issue: { loc: ['body', parsed.invalid], msg: 'JSON decode error', type: 'json_invalid' } };
  return parsed;
}

/**
 * The query's parameters, a repeated name as a list. An empty value (`?stream_mode=`, a bare
 * `?stream_mode`) or name reads as absent (the spec's rule): clients send one for "not given"
 * (LangChain's Python SDK, for every argument left `None`).
 */
export function parseQuery(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (!search) return query;
  for (const [key, value] of new URLSearchParams(search)) {
    if (key === '' || value === '') continue;
    const prev = query[key];
    if (prev === undefined) query[key] = value;
    else query[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return query;
}
