// Which webhook URLs a run may name, from the project file's `webhooks.url` section:
//   {"webhooks": {"url": {"allowed_domains": ["hooks.example.com", "*.internal"],
//                         "require_https": true, "allowed_ports": [443], "disable_loopback": true}}}
// These rules read the URL as text; the address it leads to is checked when connecting
// (webhookAddresses.ts): non-public addresses are refused unless `allowed_networks` lists them.

export interface WebhookUrlPolicy {
  /** CIDR ranges (or addresses) a webhook may reach although they are not public. */
  allowed_networks?: string[];
  allowed_domains?: string[];
  require_https?: boolean;
  allowed_ports?: number[];
  disable_loopback?: boolean;
  max_url_length?: number;
}

/** Why this URL may not be called, or null when it may. */
export function webhookUrlProblem(url: string, policy: WebhookUrlPolicy = {}): string | null {
  if (policy.max_url_length && url.length > policy.max_url_length) return `webhook URL is longer than ${policy.max_url_length} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'webhook is not an absolute URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `webhook scheme ${parsed.protocol} is not http or https`;
  if (policy.require_https && parsed.protocol !== 'https:') return 'webhooks must use https (webhooks.url.require_https)';
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (policy.disable_loopback && isLoopback(host)) return `webhook host ${host} is a loopback address (webhooks.url.disable_loopback)`;
  if (policy.allowed_domains?.length && !policy.allowed_domains.some((pattern) => domainMatches(host, pattern.toLowerCase()))) {
    return `webhook host ${host} is not in webhooks.url.allowed_domains`;
  }
  const port = Number(parsed.port || (parsed.protocol === 'https:' ? 443 : 80));
  if (policy.allowed_ports?.length && !policy.allowed_ports.includes(port)) return `webhook port ${port} is not in webhooks.url.allowed_ports`;
  return null;
}

function domainMatches(host: string, pattern: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
}
