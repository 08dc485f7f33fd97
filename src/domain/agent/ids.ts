// Identifiers the upstream agent server uses: uuid5 for system assistants (so a graph's
// assistant id is the same on every server) and time-ordered uuid7 for runs, whose order
// is the order the server received them (the run queue sorts by it).
import { createHash, randomFillSync, randomUUID } from 'node:crypto';

/** Namespace of system assistant ids in both upstream servers. */
export const ASSISTANT_NAMESPACE = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';

/**
 * The uuid5s made, by namespace and name: a run's assistant is looked up by its graph's uuid5
 * (assistants.ts), a SHA-1 and a Buffer or two each time, ~1.3% of the main thread's CPU
 * under 100-thread runs (issue 86/87). A uuid5 is a pure function of its inputs; the names
 * are few (graph ids, contexts), and the map is let go whole when it reaches MEMO_LIMIT.
 */
const made = new Map<string, string>();
const MEMO_LIMIT = 1024;

export function uuid5(name: string, namespace: string = ASSISTANT_NAMESPACE): string {
  const key = `${namespace}\u0000${name}`;
  let id = made.get(key);
  if (id === undefined) {
    if (made.size >= MEMO_LIMIT) made.clear();
    id = uuid5Made(name, namespace);
    made.set(key, id);
  }
  return id;
}

function uuid5Made(name: string, namespace: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  return formatUuid(hash);
}

let lastMs = 0;
let counter = 0;

/** A uuid7 that is strictly greater than every earlier one minted by this process. */
export function uuid7(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      // 4096 ids in one millisecond: borrow the next millisecond to stay monotonic
      lastMs += 1;
      counter = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    counter = 0;
  }
  const bytes = random16();
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/**
 * Random bytes are drawn from the system 4 KB at a time and handed out 16 at a time: a
 * `randomBytes(16)` for each id was a call into OpenSSL and a Buffer of its own (~1% of the
 * main thread's CPU under 100-thread runs: a run's id and its run's checkpoint ids). Each id's
 * bytes are used once: the pool is refilled, never reused.
 */
const POOL = Buffer.alloc(4096);
let taken = POOL.length;

function random16(): Buffer {
  if (taken + 16 > POOL.length) {
    randomFillSync(POOL);
    taken = 0;
  }
  const bytes = POOL.subarray(taken, taken + 16);
  taken += 16;
  return bytes;
}

export const uuid4 = (): string => randomUUID();

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
