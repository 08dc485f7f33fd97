// Whether an image reference's registry is this machine: `localhost` (with or without a port,
// `*.localhost` too), a loopback or unspecified IPv4 address in any form the resolver reads
// (`127.0.0.1`, `127.1`, `2130706433`, `0x7f.1`, `0.0.0.0`), or IPv6's (`[::1]`, `[::]`,
// `[::ffff:7f00:1]`). A registry there is the operator's (a kind cluster's `localhost:5001`
// holds every tenant's pushed images), so the default namespace `*` ("any registry") never
// covers it. A DNS name that resolves to this machine is not seen here: an operator with a
// registry on loopback names the namespaces each tenant may use (docs/security.md).

/** The host of `registry[:port]`, `[v6]` unbracketed, in lower case. */
function hostOf(domain: string): string {
  const lower = domain.toLowerCase();
  if (lower.startsWith('[')) return lower.slice(1, lower.indexOf(']'));
  return lower.replace(/:[0-9]*$/, '');
}

const NUMBER_PART = /^(?:0x[0-9a-f]*|[0-9]+)$/;

/** The address inet_aton reads `host` as (one to four parts, each decimal, octal or hex, the last filling what is left), or null. */
function ipv4Value(host: string): number | null {
  const parts = host.split('.');
  if (parts.length > 4 || !parts.every((p) => NUMBER_PART.test(p))) return null;
  const values = parts.map((p) => (p.startsWith('0x') ? parseInt(p.slice(2) || '0', 16) : p.length > 1 && p.startsWith('0') ? parseInt(p, 8) : Number(p)));
  if (values.some((v) => !Number.isFinite(v))) return null;
  const last = values.pop()!;
  let value = 0;
  values.forEach((v, i) => (value += v * 2 ** (24 - 8 * i)));
  return value + last;
}

/** The eight 16-bit groups of an IPv6 address (hex groups, `::` once), or null. */
function ipv6Groups(host: string): number[] | null {
  const halves = host.split('::');
  if (halves.length > 2) return null;
  const read = (half: string | undefined) => (half ? half.split(':').map((g) => parseInt(g, 16)) : []);
  const head = read(halves[0]);
  const tail = read(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
}

const loopbackOrUnspecified = (v4: number) => Math.floor(v4 / 2 ** 24) === 127 || v4 === 0;

/** Whether the registry `domain` (`host[:port]`, as an image reference writes it) is this machine. */
export function registryOnThisMachine(domain: string): boolean {
  const host = hostOf(domain);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v4 = ipv4Value(host);
  if (v4 !== null) return loopbackOrUnspecified(v4);
  const v6 = host.includes(':') ? ipv6Groups(host) : null;
  if (!v6) return false;
  const zeros = (groups: number[]) => groups.every((g) => g === 0);
  // ::1 and ::, and an IPv4 address mapped (::ffff:a.b.c.d) or compatible (::a.b.c.d) to IPv6
  if (zeros(v6.slice(0, 7)) && v6[7]! <= 1) return true;
  if (zeros(v6.slice(0, 5)) && (v6[5] === 0xffff || v6[5] === 0)) return loopbackOrUnspecified(v6[6]! * 2 ** 16 + v6[7]!);
  return false;
}
