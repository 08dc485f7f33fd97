// A port on 127.0.0.1 for a process that listens on it later: a deployment's server, a test's
// upstream dev server. listen(0) hands out a port of the kernel's ephemeral range, and so does
// every outgoing connection for its local end: in the seconds before the process binds, any
// client on the machine may take that port, and the process then fails with EADDRINUSE (seen in
// CI: the upstream dev server's port taken while it compiled). Ports below the range are never
// given to a connection, so one is picked there, at random, and tried. Nor is a port fetch refuses
// to connect to (the Fetch standard's "bad ports": undici fails such a request with "bad port"
// before any connection, so a server there is out of reach of every fetch and browser; seen in CI:
// the Dockerfile test's container on 10080).
import fs from 'node:fs';
import net from 'node:net';
import { randomInt } from 'node:crypto';

/** Below this, well-known and registered services cluster. */
const LOWEST = 10_000;
/** A port handed out is not handed out again by this process for this long (it may not be bound yet). */
const HELD_MS = 120_000;
const TRIES = 64;

/** The ports of 1024 and up that fetch refuses to connect to (the Fetch standard's port blocking; node's fetch reads the same list). */
export const FETCH_BLOCKED_PORTS: ReadonlySet<number> = new Set([
  1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

export interface PortRange {
  low: number;
  high: number;
}

/** The kernel's ephemeral range from the text of /proc/sys/net/ipv4/ip_local_port_range, or null. */
export function parsePortRange(text: string): PortRange | null {
  const [low, high] = text.trim().split(/\s+/).map(Number);
  return Number.isInteger(low) && Number.isInteger(high) && low > 0 && low <= high ? { low, high } : null;
}

let range: PortRange | null | undefined;
function ephemeralRange(): PortRange | null {
  if (range === undefined) {
    try {
      range = parsePortRange(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'));
    } catch {
      range = null; // not Linux: the kernel's choice below
    }
  }
  return range;
}

const handedOut = new Map<number, number>();

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, outside the ephemeral range where there is
 * one, and one fetch connects to. `pick` draws a port in [low, high) (tests give their own).
 */
export async function freePort(pick: (low: number, high: number) => number = randomInt): Promise<number> {
  const ephemeral = ephemeralRange();
  if (ephemeral && ephemeral.low - LOWEST >= 1_000) {
    const now = Date.now();
    for (const [port, at] of handedOut) if (now - at > HELD_MS) handedOut.delete(port);
    for (let attempt = 0; attempt < TRIES; attempt += 1) {
      const port = pick(LOWEST, ephemeral.low);
      if (FETCH_BLOCKED_PORTS.has(port) || handedOut.has(port) || !(await listensOn(port))) continue;
      handedOut.set(port, now);
      return port;
    }
  }
  return kernelPort();
}

function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port the kernel hands out, drawn again while it is one fetch refuses (an ephemeral range may reach down to them). */
async function kernelPort(): Promise<number> {
  for (;;) {
    const port = await kernelDraw();
    if (!FETCH_BLOCKED_PORTS.has(port)) return port;
  }
}

function kernelDraw(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
