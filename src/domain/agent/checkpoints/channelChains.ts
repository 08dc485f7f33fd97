// A channel value stored as the value before it plus what was added (a chain), for channels
// that grow: each version of a thread's `messages` is the list before it and the new messages,
// and storing every version whole kept the thread's messages once per version (25 runs
// appending ~400 KB each: 250 MB of values for 10 MB of messages). The saver compares a new
// value's text with its parent's (checkpointer.ts `split`); when the new text begins with most
// of the parent's, the stored record holds only the rest and names the parent's value as its
// base. The chain is bounded: a value is stored whole again every CHAIN_MAX values, or when
// the chain's stored text would pass twice the value's, so a read stays O(the value's size).
import type { ChannelRef, ChannelValueRecord } from '../../ports/checkpointsRepository.ts';
import type { Serialised } from './checkpointText.ts';

/** Values in a chain, the whole one first: a read gathers this many records at most. */
export const CHAIN_MAX = 64;
/** Shorter shared text is stored again: a chain costs a record read more. */
const MIN_SHARED = 4096;
/** Compared a piece at a time: equal pieces of flat strings compare as memory does. */
const PIECE = 64 * 1024;

/** The `at` of every stored value a ref's value is made of, the whole one first, its own last. */
export function partsOf(ref: ChannelRef): string[] {
  return ref.base ? [...ref.base, ref.at] : [ref.at];
}

/** How many stored values a ref's value is made of (partsOf's length, no array made). */
export const chainLength = (ref: ChannelRef): number => (ref.base?.length ?? 0) + 1;

/** The `at` of the i-th stored value of a ref's value (partsOf(ref)[i], no array made: a put compares long chains part by part). */
export const partAt = (ref: ChannelRef, i: number): string => (ref.base !== undefined && i < ref.base.length ? ref.base[i]! : ref.at);

/** How many leading characters `a` and `b` have in common (never ending between a surrogate pair). */
export function sharedPrefix(a: string, b: string): number {
  const most = Math.min(a.length, b.length);
  let n = 0;
  while (n < most && a.slice(n, n + PIECE) === b.slice(n, n + PIECE)) n += PIECE;
  if (n >= most) n = most;
  else {
    // the first piece that differs: halved down to its first differing character
    let lo = n;
    let hi = Math.min(n + PIECE, most);
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (a.slice(lo, mid) === b.slice(lo, mid)) lo = mid;
      else hi = mid - 1;
    }
    n = lo;
  }
  const last = n > 0 ? a.charCodeAt(n - 1) : 0;
  return last >= 0xd800 && last <= 0xdbff ? n - 1 : n;
}

/** Whether a value of this text may be stored as a tail (one shorter is stored whole: its parent's is not worth a read). */
export function mayExtend(text: string): boolean {
  return text.length >= MIN_SHARED;
}

/**
 * How a value whose text is `text` is stored when its parent's value is `parent` (stored as
 * `parentRef`): as a tail of the parent's (the record's `keep` and text, the ref's `base`
 * and `stored`) when it shares enough of it and the chain has room; undefined: whole.
 */
export function asTail(
  parent: { ref: ChannelRef; value: Serialised },
  text: string,
): { keep: number; tail: string; base: string[]; stored: number } | undefined {
  const parentText = parent.value.text;
  if (parentText === undefined || parent.value.type !== 'json' || !mayExtend(text)) return undefined;
  const base = partsOf(parent.ref);
  if (base.length >= CHAIN_MAX) return undefined;
  const keep = sharedPrefix(parentText, text);
  // what the tail does not share counts against the chain's bound (`stored`), not here
  if (keep < MIN_SHARED) return undefined;
  const stored = (parent.ref.stored ?? parent.ref.chars) + (text.length - keep);
  if (stored > 2 * text.length) return undefined;
  return { keep, tail: detached(text.slice(keep)), base, stored };
}

/**
 * The value a chain of stored records makes (the whole one first, the ref's own last), or
 * undefined when one is missing. Built back to front, so that each record's text is cut
 * once and joined once: O(the value's size), whatever the chain's length.
 */
export function joinChain(records: readonly (Pick<ChannelValueRecord, 'keep' | 'value'> | undefined)[]): Serialised | undefined {
  if (records.length === 0 || records.some((r) => r === undefined)) return undefined;
  const chain = records as readonly Pick<ChannelValueRecord, 'keep' | 'value'>[];
  if (chain.length === 1) return chain[0].value;
  const pieces: string[] = [];
  let limit = Infinity;
  for (let i = chain.length - 1; i >= 0; i -= 1) {
    const { keep, value } = chain[i];
    if (value.text === undefined) return undefined;
    const from = i === 0 ? 0 : (keep ?? 0);
    if (limit > from) pieces.push(value.text.slice(0, limit - from));
    limit = Math.min(limit, from);
  }
  return { type: chain[chain.length - 1].value.type, text: pieces.reverse().join('') };
}

/**
 * A copy of `text` that holds nothing else: a slice of a string keeps the whole string alive
 * in V8, and a stored tail must not keep the value it was cut from.
 */
function detached(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
