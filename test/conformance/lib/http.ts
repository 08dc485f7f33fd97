// Requests as values: built by generators, sent over loopback, printed as curl commands.
import type { Operation } from './contract.ts';

export interface Target {
  url: string;
  mode: 'mock' | 'real';
  /** Credentials the server accepts, added unless a request sets `auth: false`. */
  key: string;
  /**
   * Where open streams go when `url` is a proxy that buffers whole answers (Prism): such a
   * proxy can never forward a stream that stays open, so those reads bypass it.
   */
  openStreamUrl?: string;
  /** Credentials operations check themselves (a listener's token), as the answers issued them (credentials.ts). */
  ownCredentials?: { headersFor(req: HttpRequest): Record<string, string> };
  /** Told of every answer (created.ts notes what the suite made, to delete it at the end). */
  onAnswer?: (target: Target, req: HttpRequest, res: HttpResponse) => Promise<void>;
  /** The fetch to send with (default: the global one; an in-process server's in tests). */
  fetch?: typeof fetch;
  /** Once interrupted, nothing more is sent, and the requests under way are counted until answered (remote.suite.ts). */
  traffic?: { stopped: boolean; underWay: number };
}

export type Body = { kind: 'json'; value: unknown } | { kind: 'form'; value: Record<string, string> } | { kind: 'raw'; text: string; contentType?: string };

/** An HTML form's media type: an operation that reads only this takes its body's fields (each a string). */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Whether `op` reads its body as a form (an HTML page's POST) rather than JSON. */
export const takesForm = (op: Operation): boolean => !!op.body?.mediaTypes.includes(FORM_TYPE) && !op.body.mediaTypes.includes('application/json');

/**
 * A JSON value as the form a browser would post: each field's text (a value other than a string
 * as its JSON), the fields and values a server cannot tell from none (empty) left out, as the
 * server reads them.
 */
export function formFields(value: unknown): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const fields: Record<string, string> = {};
  for (const [name, field] of Object.entries(value)) {
    const text = typeof field === 'string' ? field : JSON.stringify(field);
    if (name !== '' && text !== undefined && text !== '') fields[name] = text;
  }
  return fields;
}

export interface HttpRequest {
  operationId: string;
  method: string;
  /** The path template and its parameter values. */
  template: string;
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  body?: Body;
  /** false: send no credentials; a string: send that key instead of the server's. */
  auth?: false | string;
  /** The answer is a stream that stays open (`x-agentplane-open-stream`): read it briefly, then hang up. */
  openStream?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  contentType: string | null;
  text: string;
  /** Parsed JSON body when the body is JSON; undefined otherwise. */
  json?: unknown;
  /** Parsed Server-Sent Events when the body is an event stream. */
  events?: { event?: string; id?: string; data: string }[];
  error?: string;
}

const REQUEST_TIMEOUT_MS = Number(process.env.CONFORMANCE_TIMEOUT_MS ?? 15_000);
/** How long an open stream is read before the suite hangs up and checks what came. */
const OPEN_STREAM_READ_MS = 400;

export function encodeSegment(value: unknown): string {
  // the generators never produce "." or "..": fetch folds them away, %2E-encoded or not
  return encodeURIComponent(String(value));
}

export function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, typeof v === 'string' ? v : JSON.stringify(v));
  }
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** The query as the server reads it: strings, repeated names as arrays, an empty value (or name) as absent (the spec's rule). */
export function wireQuery(query: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(queryString(query).slice(1))) {
    if (k === '' || v === '') continue;
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

export function urlOf(base: string, req: HttpRequest): string {
  const path = req.template.replace(/\{([^}]+)\}/g, (_, name) => encodeSegment(req.path[name]));
  return base + path + queryString(req.query);
}

export function wireHeaders(target: Pick<Target, 'key' | 'ownCredentials'>, req: HttpRequest): Record<string, string> {
  const headers: Record<string, string> = { ...req.headers };
  if (req.auth !== false) headers['X-Api-Key'] = typeof req.auth === 'string' ? req.auth : target.key;
  // the probes' `auth` (none, or an unknown key) sends no other credential either
  if (req.auth === undefined) Object.assign(headers, target.ownCredentials?.headersFor(req));
  if (req.body?.kind === 'json') headers['Content-Type'] = 'application/json';
  if (req.body?.kind === 'form') headers['Content-Type'] = FORM_TYPE;
  if (req.body?.kind === 'raw' && req.body.contentType) headers['Content-Type'] = req.body.contentType;
  return headers;
}

export const bodyText = (body: Body | undefined): string | undefined =>
  body === undefined
    ? undefined
    : body.kind === 'json'
      ? JSON.stringify(body.value)
      : body.kind === 'form'
        ? new URLSearchParams(body.value).toString()
        : body.text;

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function curl(target: Pick<Target, 'url' | 'key' | 'ownCredentials'>, req: HttpRequest): string {
  const parts = ['curl -sS -i', '-X', req.method, shellQuote(urlOf(target.url, req))];
  for (const [k, v] of Object.entries(wireHeaders(target, req))) parts.push('-H', shellQuote(`${k}: ${v}`));
  // curl labels --data as a form unless told to send no Content-Type
  if (req.body?.kind === 'raw' && req.body.contentType === undefined) parts.push('-H', shellQuote('Content-Type:'));
  const text = bodyText(req.body);
  if (text !== undefined) parts.push('--data-raw', shellQuote(text));
  return parts.join(' ');
}

export async function send(target: Target, req: HttpRequest): Promise<HttpResponse> {
  const traffic = target.traffic;
  if (traffic?.stopped) return { status: 0, headers: new Headers(), contentType: null, text: '', error: 'not sent: the run was interrupted' };
  if (traffic) traffic.underWay += 1;
  try {
    return await sendNow(target, req);
  } finally {
    if (traffic) traffic.underWay -= 1;
  }
}

async function sendNow(target: Target, req: HttpRequest): Promise<HttpResponse> {
  let res: Response;
  const hangUp = new AbortController();
  try {
    res = await (target.fetch ?? fetch)(urlOf(req.openStream && target.openStreamUrl ? target.openStreamUrl : target.url, req), {
      method: req.method,
      headers: wireHeaders(target, req),
      // bytes, not a string: fetch would label a string body text/plain
      body: req.body?.kind === 'raw' && req.body.contentType === undefined ? new TextEncoder().encode(req.body.text) : bodyText(req.body),
      signal: AbortSignal.any([AbortSignal.timeout(REQUEST_TIMEOUT_MS), hangUp.signal]),
      // a redirect is an answer to check (a form's 303), not a page to go on to
      redirect: 'manual',
    });
  } catch (err) {
    return { status: 0, headers: new Headers(), contentType: null, text: '', error: `no response: ${(err as Error).message}` };
  }
  let text = '';
  let error: string | undefined;
  try {
    text = req.openStream && res.ok && res.body ? await readBriefly(res.body, hangUp) : await res.text();
  } catch (err) {
    error = `body not read within ${REQUEST_TIMEOUT_MS} ms: ${(err as Error).message}`;
  }
  const contentType = res.headers.get('content-type');
  const out: HttpResponse = { status: res.status, headers: res.headers, contentType, text, error };
  const media = contentType?.split(';')[0].trim().toLowerCase();
  if (media === 'text/event-stream') out.events = parseSse(text);
  else if (text && media && /^application\/([\w.+-]*\+)?json$/.test(media)) {
    try {
      out.json = JSON.parse(text);
    } catch {
      out.error = 'the body is not valid JSON';
    }
  }
  await target.onAnswer?.(target, req, out);
  return out;
}

/** What an open stream sends in its first moments; complete events only. */
async function readBriefly(body: ReadableStream<Uint8Array>, hangUp: AbortController): Promise<string> {
  const timer = setTimeout(() => hangUp.abort(), OPEN_STREAM_READ_MS);
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of body) text += decoder.decode(chunk, { stream: true });
  } catch {
    // hung up
  } finally {
    clearTimeout(timer);
  }
  const lastBoundary = text.lastIndexOf('\n\n');
  return lastBoundary < 0 ? '' : text.slice(0, lastBoundary + 2);
}

export function parseSse(text: string): { event?: string; id?: string; data: string }[] {
  const events: { event?: string; id?: string; data: string }[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    const e: { event?: string; id?: string; data: string } = { data: '' };
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;
      const at = line.indexOf(':');
      const field = at < 0 ? line : line.slice(0, at);
      const value = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '');
      if (field === 'event') e.event = value;
      else if (field === 'id') e.id = value;
      else if (field === 'data') data.push(value);
    }
    e.data = data.join('\n');
    if (data.length || e.event) events.push(e);
  }
  return events;
}

export function describeResponse(res: HttpResponse): string {
  if (res.status === 0) return res.error ?? 'no response';
  const body = res.text.length > 600 ? `${res.text.slice(0, 600)}…` : res.text;
  return `HTTP ${res.status} ${res.contentType ?? '(no content type)'} ${body}`;
}

export const requestFor = (op: Operation, parts: Partial<HttpRequest> = {}): HttpRequest => ({
  operationId: op.operationId,
  method: op.method,
  template: op.path,
  path: {},
  query: {},
  headers: {},
  openStream: (op.raw as Record<string, unknown>)['x-agentplane-open-stream'] === true,
  ...parts,
  // a body made from the schema goes as a form where the operation reads one
  ...(parts.body?.kind === 'json' && takesForm(op) ? { body: { kind: 'form' as const, value: formFields(parts.body.value) } } : {}),
});
