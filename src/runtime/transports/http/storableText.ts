// Text every store can keep: no NUL (U+0000) and no lone UTF-16 surrogate, in any string or
// object key a client sends. PostgreSQL's text and jsonb refuse NUL, its json functions fail
// on a `\u0000` already stored (a run's record then blocks the claim of every run), and a lone
// surrogate is replaced by U+FFFD on its way in. The embedded store would keep both, so the
// two backends would answer differently: such text is refused at the door instead, on both,
// with a 422 naming the field, before anything is stored.
import type { ValidationErrorItem } from '../../errors.ts';

/**
 * Where JSON text may spell a NUL or a surrogate: only as a `\u` escape (a raw control
 * character is not JSON, and decoded UTF-8 holds no lone surrogate). Text without one needs
 * no walk of its parsed value.
 */
const MAY_HOLD_UNSTORABLE = /\\u(?:0000|[dD][89a-fA-F])/;

/** Whether JSON text may hold unstorable text once parsed (false: it cannot). */
export const jsonMayHoldUnstorable = (text: string): boolean => MAY_HOLD_UNSTORABLE.test(text);

/** A high surrogate not followed by a low one, or a low one not after a high one (code units: no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableReason(text: string): string | undefined {
  if (text.includes('\0')) return 'Text may not hold the NUL character (U+0000): the store cannot keep it';
  if (LONE_SURROGATE.test(text)) return 'Text may not hold a lone UTF-16 surrogate (U+D800 to U+DFFF): it is not Unicode text';
  return undefined;
}

/** A NUL or any surrogate, paired or not: text without one is storable (a pair is then looked at by unstorableReason). */
const MAY_BE_UNSTORABLE = /[\0\uD800-\uDFFF]/;

/**
 * Whether `value` is an object of strings only (a path's parameters, most queries) whose keys
 * and values hold neither a NUL nor a surrogate: storable, found by one test a string, without
 * the walk below (a stack entry and a `loc` array a string, two patterns on each).
 */
function flatAndStorable(value: object): boolean {
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    if (typeof item !== 'string' || MAY_BE_UNSTORABLE.test(key) || MAY_BE_UNSTORABLE.test(item)) return false;
  }
  return true;
}

/** The first string or key of `value` that cannot be stored, as a 422 item whose `loc` starts at `loc`; undefined when all can. */
export function unstorableText(value: unknown, loc: (string | number)[]): ValidationErrorItem | undefined {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && flatAndStorable(value)) return undefined;
  // an explicit stack: a value may nest as deep as the body's depth limit allows
  const stack: { value: unknown; loc: (string | number)[] }[] = [{ value, loc }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (typeof next.value === 'string') {
      const reason = unstorableReason(next.value);
      if (reason) return { loc: next.loc, msg: reason, type: 'string_unstorable' };
    } else if (Array.isArray(next.value)) {
      for (let i = next.value.length - 1; i >= 0; i -= 1) stack.push({ value: next.value[i], loc: [...next.loc, i] });
    } else if (next.value !== null && typeof next.value === 'object') {
      const entries = Object.entries(next.value);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [key, item] = entries[i];
        const reason = unstorableReason(key);
        if (reason) return { loc: [...next.loc, key], msg: `${reason} (in this key)`, type: 'string_unstorable' };
        stack.push({ value: item, loc: [...next.loc, key] });
      }
    }
  }
  return undefined;
}

const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** `text` with each NUL and lone surrogate replaced by U+FFFD, as a decoder does for what it cannot read. */
export const storableString = (text: string): string => text.replaceAll('\0', '\uFFFD').replace(LONE_SURROGATES, '\uFFFD');

/** A copy of a JSON value whose strings and keys can all be stored (storableString). */
export function storableCopy(value: unknown): unknown {
  if (typeof value === 'string') return storableString(value);
  if (Array.isArray(value)) return value.map(storableCopy);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [storableString(key), storableCopy(item)]));
}
