// Reading a request: its body (bounded in size, without an await when there is none) and
// its query string. Nothing here knows operations or schemas.
import type { IncomingMessage } from 'node:http';
import type { ValidationErrorItem } from './errors.ts';

export const TOO_LARGE = Symbol('too-large');
export const JSON_MEDIA = /^application\/([\w.+-]*\+)?json\b/i;

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
    req.on('end', () => resolve(size === 0 ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A JSON body, or the one problem that stops it from being read (FastAPI's item shape). */
export function parseBody(raw: string | undefined, contentType: string | undefined, required: boolean): { value: unknown } | { issue: ValidationErrorItem } {
  if (raw === undefined || raw.trim() === '') {
    if (required) return { issue: { loc: ['body'], msg: 'Field required', type: 'missing' } };
    return { value: undefined };
  }
  if (contentType && !JSON_MEDIA.test(contentType)) {
    return { issue: { loc: ['body'], msg: `Unsupported content type ${contentType.split(';')[0]}: send application/json`, type: 'content_type' } };
  }
  try {
    return { value: JSON.parse(raw) };
  } catch (err) {
    const at = /position (\d+)/.exec((err as Error).message);
    return { issue: { loc: ['body', at ? Number(at[1]) : 0], msg: 'JSON decode error', type: 'json_invalid' } };
  }
}

export function parseQuery(search: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (!search) return query;
  for (const [key, value] of new URLSearchParams(search)) {
    const prev = query[key];
    if (prev === undefined) query[key] = value;
    else query[key] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return query;
}
