// Identifiers the upstream agent server uses: uuid5 for system assistants (so a graph's
// assistant id is the same on every server) and time-ordered uuid7 for runs, whose order
// is the order the server received them (the run queue sorts by it).
import { createHash, randomFillSync } from 'node:crypto';

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

/** A random (version 4) UUID, drawn from the same pool as uuid7's random bits. */
export function uuid4(): string {
  const bytes = random16();
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return formatUuid(bytes);
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** The 36 characters of the id being formatted: its dashes stay, its digits are written over. */
const TEXT = Buffer.alloc(36, '-', 'latin1');

/**
 * The id's text as one flat string (its characters in one piece of memory). `randomUUID` and
 * the slices joined here before joined pieces (a string of 20 or 9 parts), which every reader
 * of the id's characters later flattened or walked: the store's parse of an id to its 128 bits
 * (packedIds.ts), at each write and look-up of a thread or run, cost ~4× a flat string's, and
 * the journal line, the reply and each Map keyed by the id read it again (issue 86: POST
 * /threads ~5,000 instructions a create in parses alone).
 */
function formatUuid(bytes: Buffer): string {
  let at = 0;
  for (let i = 0; i < 16; i += 1) {
    if (i === 4 || i === 6 || i === 8 || i === 10) at += 1; // a dash
    const byte = bytes[i]!;
    TEXT[at++] = HEX_DIGITS[byte >> 4]!;
    TEXT[at++] = HEX_DIGITS[byte & 15]!;
  }
  return TEXT.toString('latin1');
}
