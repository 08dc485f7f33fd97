// One webhook POST whose connection may only reach addresses the rule allows. The address is
// checked where the connection is made: a literal host before connecting, a name through the
// socket's own DNS lookup (so the address checked is the address connected to, and a name that
// answers differently the second time gains nothing). Redirects are never followed: a 3xx is
// the receiver's answer, and following it would reach a URL no rule has seen.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { addressCheck, type AddressCheck, type AddressRule } from './webhookAddresses.ts';
import type { SendOutcome, WebhookSender } from '../../domain/ports/webhookSender.ts';

/** Thrown when the rule refuses every address the host has: no connection was made. */
export class RefusedAddress extends Error {}

/** The receiver's answer to one POST. */
export interface PostOutcome {
  status: number;
}

/**
 * The project's sender: every POST but one to this server itself goes by the rule; the
 * receiver's status read as a delivery, a redirect (not followed) or a failure worth another
 * attempt. Throws naming the entry when the rule's allowed_networks holds something that is no range.
 */
export function webhookSender(rule: AddressRule | undefined): WebhookSender {
  const check = addressCheck(rule);
  return async (url, body, headers, timeoutMs, guarded): Promise<SendOutcome> => {
    try {
      const { status } = await postJson(url, body, headers, timeoutMs, guarded ? check : () => null);
      if (status >= 200 && status < 300) return { kind: 'delivered', status };
      if (status >= 300 && status < 400) return { kind: 'redirected', status };
      return { kind: 'failed', status };
    } catch (err) {
      if (err instanceof RefusedAddress) return { kind: 'refused', reason: err.message };
      return { kind: 'failed', error: (err as Error).message };
    }
  };
}

export function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number, check: AddressCheck): Promise<PostOutcome> {
  const target = new URL(url);
  const hostname = target.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(hostname)) {
    const problem = check(hostname);
    if (problem) return Promise.reject(new RefusedAddress(problem));
  }
  const request = target.protocol === 'https:' ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        protocol: target.protocol,
        hostname,
        port: target.port || undefined,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        agent: false,
        lookup: checkedLookup(check),
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** dns.lookup, keeping only the addresses the rule allows; none left is an error naming why. */
export function checkedLookup(check: AddressCheck, what = 'webhook host') {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const allowed = addresses.filter((a) => check(a.address) === null);
      if (allowed.length === 0) {
        const problem = addresses.length ? check(addresses[0].address) : 'it has no address';
        return callback(new RefusedAddress(`${what} ${hostname}: ${problem}`), []);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
