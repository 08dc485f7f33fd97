// The auth service's only way out: a fetch whose connections may only reach addresses the rule
// allows. Every URL it fetches (authorization servers' endpoints, MCP servers and their
// metadata, registration endpoints) is chosen by a tenant, so without this a tenant could make
// the control plane reach its own loopback services, the cloud metadata address or private
// hosts. The rule is the webhooks' one, applied the same way: a literal host before connecting,
// a name through the socket's own DNS lookup (the address checked is the address connected to).
// Redirects are never followed: a 3xx goes back as it is, and oauth4webapi refuses it.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { type AddressCheck } from '../webhooks/webhookAddresses.ts';
import { checkedLookup, RefusedAddress } from '../webhooks/webhookTransport.ts';

/** Answers larger than this are cut off with an error: metadata and token answers are small. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface GuardedInit {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: string | URLSearchParams | null;
  signal?: AbortSignal | null;
}

export type GuardedFetch = (url: string | URL, init?: GuardedInit) => Promise<Response>;

export function guardedFetch(check: AddressCheck): GuardedFetch {
  return async (url, init = {}) => {
    const target = new URL(url);
    if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new TypeError(`${target.protocol} URLs cannot be fetched`);
    const hostname = target.hostname.replace(/^\[|\]$/g, '');
    if (net.isIP(hostname)) {
      const problem = check(hostname);
      if (problem) throw new RefusedAddress(`authorization host ${hostname}: ${problem}`);
    }
    const body = init.body == null ? undefined : String(init.body);
    const headers = Object.fromEntries(new Headers(init.headers ?? {}).entries());
    if (init.body instanceof URLSearchParams && !headers['content-type']) headers['content-type'] = 'application/x-www-form-urlencoded;charset=UTF-8';
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const request = target.protocol === 'https:' ? https.request : http.request;
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        {
          protocol: target.protocol,
          hostname,
          port: target.port || undefined,
          path: `${target.pathname}${target.search}`,
          method: init.method ?? 'GET',
          headers,
          agent: false,
          lookup: checkedLookup(check, 'authorization host'),
          signal: init.signal ?? undefined,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_BODY_BYTES) return res.destroy(new Error(`${target.origin} answered more than ${MAX_BODY_BYTES} bytes`));
            chunks.push(chunk);
          });
          res.on('error', reject);
          res.on('end', () => {
            try {
              resolve(toResponse(res, chunks, target));
            } catch (error) {
              reject(error);
            }
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  };
}

function toResponse(res: http.IncomingMessage, chunks: Buffer[], target: URL): Response {
  const status = res.statusCode ?? 502;
  const answerHeaders = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, v);
  }
  const empty = status === 204 || status === 304 || (status >= 100 && status < 200);
  const answer = new Response(empty ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers: answerHeaders });
  // oauth4webapi reads response.url to check where an answer came from
  Object.defineProperty(answer, 'url', { value: target.href });
  return answer;
}
