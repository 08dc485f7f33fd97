// A port on 127.0.0.1 for a process that listens on it later: a deployment's server, a test's
// upstream dev server. listen(0) hands out a port of the kernel's ephemeral range, and so does
// every outgoing connection for its local end: in the seconds before the process binds, any
// client on the machine may take that port, and the process then fails with EADDRINUSE (seen in
// CI: the upstream dev server's port taken while it compiled). Ports below the range are never
// given to a connection, so one is picked there, at random, and tried.
import fs from 'node:fs';
import net from 'node:net';
import { randomInt } from 'node:crypto';

/** Below this, well-known and registered services cluster. */
const LOWEST = 10_000;
/** A port handed out is not handed out again by this process for this long (it may not be bound yet). */
const HELD_MS = 120_000;
const TRIES = 64;

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

/** A TCP port on 127.0.0.1 that was free a moment ago, outside the ephemeral range where there is one. */
export async function freePort(): Promise<number> {
  const ephemeral = ephemeralRange();
  if (ephemeral && ephemeral.low - LOWEST >= 1_000) {
    const now = Date.now();
    for (const [port, at] of handedOut) if (now - at > HELD_MS) handedOut.delete(port);
    for (let attempt = 0; attempt < TRIES; attempt += 1) {
      const port = randomInt(LOWEST, ephemeral.low);
      if (handedOut.has(port) || !(await listensOn(port))) continue;
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

function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
