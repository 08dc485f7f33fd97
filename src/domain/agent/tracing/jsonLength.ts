// The length of a value's JSON text (what `JSON.stringify(value).length` answers), for the
// `input.size` and `output.size` of a run's node spans. A node's input is the whole state of
// its thread, so stringifying it on every node made a run's cost grow with its thread's
// history: every LangChain message serialised itself (`toJSON`) once more per node. Here the
// arrays and plain objects around them are walked, and the length of an object that
// serialises itself is computed once per object and remembered (a message in a thread's
// state is the same object from step to step). A message changed in place after it was
// measured keeps its first length: an attribute of a trace, not data.

const measured = new WeakMap<object, number>();

/** Nesting followed by the walk; anything deeper is stringified as a whole. */
const WALK_DEPTH = 4;

/** `JSON.stringify(value)?.length`, or -1 when the value cannot be stringified (a cycle, a BigInt). */
export function jsonLength(value: unknown): number {
  try {
    return lengthOf(value, WALK_DEPTH) ?? 'undefined'.length;
  } catch {
    return -1;
  }
}

/** Undefined where JSON.stringify leaves the value out (undefined, a function, a symbol). */
function lengthOf(value: unknown, depth: number): number | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)?.length;
  const known = measured.get(value);
  if (known !== undefined) return known;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    const length = JSON.stringify(value)?.length;
    if (length !== undefined) measured.set(value, length);
    return length;
  }
  if (depth === 0 || !isWalkable(value)) return JSON.stringify(value)?.length;
  if (Array.isArray(value)) {
    let length = 2 + Math.max(0, value.length - 1);
    for (const item of value) length += lengthOf(item, depth - 1) ?? 'null'.length;
    return length;
  }
  let length = 2;
  let members = 0;
  for (const key of Object.keys(value)) {
    const member = lengthOf((value as Record<string, unknown>)[key], depth - 1);
    if (member === undefined) continue;
    length += JSON.stringify(key).length + 1 + member;
    members += 1;
  }
  return length + Math.max(0, members - 1);
}

/** Arrays and plain objects: what JSON.stringify writes member by member. */
function isWalkable(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
