// Which network addresses a webhook may connect to. A webhook URL is chosen by whoever creates
// a run, so without this rule any client could make the server POST into its own network
// (loopback services, the cloud metadata endpoint, private hosts). The rule is applied to the
// address actually connected to — after DNS, so a name that resolves (or re-resolves) to a
// private address is caught as well as a literal one — and refuses every non-public range
// unless the operator lists it in `webhooks.url.allowed_networks`.
import net from 'node:net';

/** Non-public ranges, each with the word a refusal uses for it. */
const NON_PUBLIC: readonly [label: string, ranges: readonly string[]][] = [
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['unspecified ("this host")', ['0.0.0.0/8', '::/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', '100.64.0.0/10']],
  ['link-local (cloud metadata lives there)', ['169.254.0.0/16', 'fe80::/10', 'fec0::/10']],
  ['multicast or reserved', ['224.0.0.0/4', '240.0.0.0/4', 'ff00::/8']],
  ['special-purpose', ['192.0.0.0/24', '192.0.2.0/24', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '100::/64', '2001:db8::/32']],
  // IPv6 forms that carry an IPv4 address (IPv4-compatible, NAT64, 6to4, Teredo): the IPv4
  // inside may be anything, so they are refused unless allowed; IPv4-mapped ones are unwrapped
  ['an IPv4 address in IPv6 form', ['::/96', '64:ff9b::/96', '64:ff9b:1::/48', '2002::/16', '2001::/32']],
];

/**
 * The ranges as block lists, made at the first address checked: building them (node's IPv6
 * pattern compiled at the first net.isIP of an IPv6 address, then ~30 subnets) cost every start
 * ~20-45 ms of CPU before its first answer, for rules no request before a webhook, a push
 * config or an OAuth call reads.
 */
let ranges: { label: string; list: AddressList }[] | undefined;
const nonPublic = () => (ranges ??= NON_PUBLIC.map(([label, entries]) => ({ label, list: blockListOf(entries, 'the non-public ranges') })));

export interface AddressRule {
  /** Ranges (CIDR) or single addresses the operator allows although they are not public. */
  allowed_networks?: string[];
  /** Loopback is refused even when allowed_networks covers it. */
  disable_loopback?: boolean;
  /** The setting that opens a range, named in refusals (the auth service has its own). */
  setting?: string;
}

/** A compiled rule: why an address may not be connected to, or null when it may. */
export type AddressCheck = (address: string) => string | null;

/** Throws naming the entry when an allowed network is not an address or CIDR range. */
export function addressCheck(rule: AddressRule = {}): AddressCheck {
  const setting = rule.setting ?? 'webhooks.url.allowed_networks';
  const allowed = blockListOf(rule.allowed_networks ?? [], setting);
  return (raw) => {
    const address = unwrapMapped(raw);
    const family = net.isIP(address) === 6 ? 'ipv6' : 'ipv4';
    const [loopback] = nonPublic();
    if (rule.disable_loopback && loopback.list.check(address, family)) return `address ${raw} is loopback (webhooks.url.disable_loopback)`;
    if (allowed.check(address, family)) return null;
    const range = nonPublic().find(({ list }) => list.check(address, family));
    return range ? `address ${raw} is ${range.label}, not public; allow it with ${setting}` : null;
  };
}

/**
 * The refusal a delivery to this URL would meet for its host, when the host is an address (or
 * localhost) and the rule refuses it: known before any delivery is tried, so a push config to
 * 169.254.169.254 or 10.x is refused when it is set rather than at each delivery. A name is left
 * to the connection: what DNS answers then is what counts.
 */
export function literalHostProblem(url: string, check: AddressCheck): string | null {
  let host: string;
  try {
    // the WHATWG parser writes every IPv4 spelling (0x7f.1, 2130706433) as dotted decimal
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
  if (net.isIP(host)) return check(host);
  if (host === 'localhost' || host.endsWith('.localhost')) return check('127.0.0.1');
  return null;
}

/** What a rule asks of a list of ranges. */
type AddressList = Pick<net.BlockList, 'check'>;

/** No ranges: nothing is in them (the operator allowed none, as by default). */
const NO_RANGES: AddressList = { check: () => false };

function blockListOf(entries: readonly string[], setting: string): AddressList {
  if (!entries.length) return NO_RANGES;
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = net.isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (!family || extra !== undefined || (bits !== undefined && !/^\d{1,3}$/.test(bits)) || prefix > (family === 6 ? 128 : 32)) {
      throw new Error(`${setting}: "${entry}" is not an IP address or a CIDR range (like 10.0.0.0/8 or fd00::/8)`);
    }
    const unwrapped = unwrapMapped(address);
    if (net.isIP(unwrapped) === 4 && family === 6) list.addSubnet(unwrapped, Math.max(0, prefix - 96), 'ipv4');
    else list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** `::ffff:127.0.0.1` and `::ffff:7f00:1` are 127.0.0.1: IPv4-mapped addresses reach IPv4 hosts. */
export function unwrapMapped(address: string): string {
  if (net.isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  if (!groups || groups.slice(0, 5).some((g) => g !== 0) || groups[5] !== 0xffff) return address;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

function expandIpv6(address: string): number[] | null {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = part(head);
  const back = part(tail);
  const groups = tail === undefined ? front : [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}
