// The origin (scheme://host[:port]) of absolute URLs the server hands out (agent cards, the
// custom_url of deployments, custom auth's Request), when no public URL is configured.
// By default it is the request's Host header, over http. Behind a reverse proxy that the
// operator trusts (AGENTPLANE_TRUST_PROXY), the proxy's Forwarded / X-Forwarded-Proto and
// X-Forwarded-Host name what the client used; otherwise those headers are ignored, since
// any client can send them.
import type { IncomingHttpHeaders } from 'node:http';

/** A host[:port] as a Host header carries it: a name or IPv4 address, or a bracketed IPv6 one. */
const HOST = /^(?:[A-Za-z0-9._~-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const PROTO = /^https?$/i;

const firstOf = (value: string | string[] | undefined): string | undefined => {
  const text = Array.isArray(value) ? value[0] : value;
  // a chain of proxies appends: the first entry is what the client sent to the outermost one
  const first = text?.split(',')[0].trim();
  return first ? first : undefined;
};

/** proto= and host= of the first element of an RFC 7239 Forwarded header. */
function forwarded(header: string | undefined): { proto?: string; host?: string } {
  const out: { proto?: string; host?: string } = {};
  if (!header) return out;
  for (const pair of header.split(';')) {
    const at = pair.indexOf('=');
    if (at < 0) continue;
    const name = pair.slice(0, at).trim().toLowerCase();
    const value = pair
      .slice(at + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (name === 'proto' || name === 'host') out[name] = value;
  }
  return out;
}

export function requestOrigin(headers: IncomingHttpHeaders, trustProxy: boolean): string {
  let proto = 'http';
  let host = firstOf(headers.host);
  if (trustProxy) {
    const fwd = forwarded(firstOf(headers.forwarded));
    const fwdProto = fwd.proto ?? firstOf(headers['x-forwarded-proto']);
    const fwdHost = fwd.host ?? firstOf(headers['x-forwarded-host']);
    if (fwdProto && PROTO.test(fwdProto)) proto = fwdProto.toLowerCase();
    if (fwdHost && HOST.test(fwdHost)) host = fwdHost;
  }
  return `${proto}://${host && HOST.test(host) ? host : 'localhost'}`;
}
