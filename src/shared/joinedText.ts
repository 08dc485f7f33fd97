// Strings joined by concatenation rather than by Array.prototype.join. V8 (node 20) makes join's
// result two-byte as soon as one part is a thin string: one it internalised after it was made,
// as happens to a task id once LangGraph uses it as a property name. A two-byte id makes every
// text it is put in two-byte too (JSON.stringify's output, a journal line, a shard's trailer):
// twice the memory, and each copy to UTF-8 a transcoding (measured on the main thread: the
// trailers' `Buffer.from` and the journal's byte lengths flattening to two-byte, ~4% of it).
// Concatenation reads through a thin string, so ASCII parts give a one-byte result.

/** `parts` with `separator` between them, as `parts.join(separator)` reads. */
export function joinedText(parts: readonly string[], separator: string): string {
  let text = parts.length ? parts[0] : '';
  for (let i = 1; i < parts.length; i += 1) text += separator + parts[i];
  return text;
}
