// A line's fields as they are written. An Error's own properties are not enumerable, so as it
// is it would be written `{}`; and the properties a library hangs on one (a request's config,
// its headers) may hold credentials. So an Error, wherever it sits in the fields, is written as
// its name, message and stack, and nothing else.

/** What an Error is written as. */
export interface ErrorShown {
  name: string;
  message: string;
  stack?: string;
}

/**
 * `fields` with every Error in them shown as name, message and stack. Fields of plain values
 * (every access line) are returned as they are, without a copy.
 */
export function withErrorsShown(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (fields === undefined) return undefined;
  for (const key in fields) {
    const value = fields[key];
    if (typeof value === 'object' && value !== null) return shown(fields, new WeakSet()) as Record<string, unknown>;
  }
  return fields;
}

/** Plain objects and arrays are copied with their Errors shown; other values (dates, buffers) stay as they are. */
function shown(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack } satisfies ErrorShown;
  if (seen.has(value)) return '[Circular]';
  if (Array.isArray(value)) {
    seen.add(value);
    const copy = value.map((item) => shown(item, seen));
    seen.delete(value);
    return copy;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  seen.add(value);
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = shown(item, seen);
  seen.delete(value);
  return copy;
}
