// The kept fields of packed records (packedRecords.ts) as numbers in a typed column rather than
// references in an array (issue 91). A run's kept fields are mostly a few strings over and over
// (its status, owner, assistant) and its thread's id, shared by ten runs: a slot of 8 bytes a
// field and a run on the heap (~5 MB of a server holding 100,000 runs) where a code of 4 bytes
// off the heap names the same string, which a table here holds once while any record holds it.

/** No value (the field is absent). */
export const ABSENT = 0;
/** The record's own id (a run's run_id, a thread's thread_id), read back from its handle. */
export const OWN_ID = 1;
/** A value that is not a string (a thread's metadata), kept as it is beside the column. */
export const OTHER = 2;
/**
 * An empty plain object (a thread's `metadata` as most threads are created: `{}`, one frozen
 * object every frozen copy shares: freeze.ts), read back as one shared frozen `{}`. Kept as OTHER
 * it was an entry of a Map beside the column a thread (set at each create, deleted at each
 * update: a Map of every thread, ~1 µs a create of a large one's cache misses; issue 86).
 */
export const EMPTY = 3;
const FIRST = 4;

/**
 * The strings the columns name, each with the number of fields naming it. A string no field
 * names any more stays in the table, unnamed, until they outnumber the named: deleting a key
 * from a Map and setting it again (a status that comes and goes) leaves the deleted copy in the
 * key's hash chain until the table is rebuilt, which made each lookup walk thousands of them
 * (the same as orderedIds.ts OwnPositions; issue 86).
 */
export class KeptCodes {
  private byValue = new Map<string, number>();
  /** Per code − FIRST: the string, and how many fields name it (0: unnamed, to be swept). */
  private readonly values: (string | undefined)[] = [];
  private readonly counts: number[] = [];
  private readonly free: number[] = [];
  private unnamed = 0;

  /** The code of `value`, counted once more. */
  name(value: string): number {
    let code = this.byValue.get(value);
    if (code === undefined) {
      code = this.free.pop() ?? this.values.length + FIRST;
      this.byValue.set(value, code);
      this.values[code - FIRST] = value;
      this.counts[code - FIRST] = 0;
    } else if (this.counts[code - FIRST] === 0) this.unnamed -= 1;
    this.counts[code - FIRST]! += 1;
    return code;
  }

  /** A field naming `code` no longer does. */
  release(code: number): void {
    if (code < FIRST) return;
    if ((this.counts[code - FIRST]! -= 1) > 0) return;
    this.unnamed += 1;
    if (this.unnamed > 64 && this.unnamed > this.byValue.size - this.unnamed) this.sweep();
  }

  valueOf(code: number): string {
    return this.values[code - FIRST]!;
  }

  /** How many strings are named (for tests). */
  get size(): number {
    return this.byValue.size - this.unnamed;
  }

  /** Lets go of the strings no field names, their codes taken again later. */
  private sweep(): void {
    const named = new Map<string, number>();
    for (const [value, code] of this.byValue) {
      if (this.counts[code - FIRST]! > 0) named.set(value, code);
      else {
        this.values[code - FIRST] = undefined;
        this.free.push(code);
      }
    }
    this.byValue = named;
    this.unnamed = 0;
  }
}
