// The ids of a packed collection's records (packedRecords.ts; issue 91), each known by a small
// number, its handle, for as long as the record lives. A server holding 100,000 runs kept each
// run's id as a string of its own (~56 bytes) and a slot in a Map by id (~35 bytes), and the
// collection's order and each thread's index of runs held the strings again: ~10 MB of the heap
// of such a server, more than its bound leaves beside a full cache. An id as the store makes
// them (a UUID, lowercase, as randomUUID gives) is kept here as its 16 bytes in a column, found
// through a table of handles hashed on those bytes; the order and the indexes hold handles
// (orderedIds.ts), and the string is made again when a reader walks them. Any other id (another
// form, upper case) is kept as it came, in a Map of its own: it must read back as written.

/** Each character's value as a hex digit (lowercase only: an id in upper case is kept as it came), else -1. */
const NIBBLE = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d += 1) NIBBLE['0123456789abcdef'.charCodeAt(d)] = d;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** Where a UUID's 32 digits are among its 36 characters. */
const DIGIT_AT = Array.from({ length: 32 }, (_, d) => d + (d >= 8 ? 1 : 0) + (d >= 12 ? 1 : 0) + (d >= 16 ? 1 : 0) + (d >= 20 ? 1 : 0));
const DASH = 0x2d;

const EMPTY = 0;
const DELETED = -1;

export class PackedIds {
  /** Per handle, the UUID's 128 bits as four 32-bit words. */
  private words = new Uint32Array(0);
  /** Per handle: 1 a UUID in `words`, 2 an id kept as it came (`odd`), 0 free. */
  private kinds = new Uint8Array(0);
  private readonly odd = new Map<number, string>();
  private readonly oddHandles = new Map<string, number>();
  /** Open addressing on the UUIDs' bits: a handle + 1, EMPTY, or DELETED. */
  private table = new Int32Array(16);
  /** Slots of `table` not EMPTY (live and deleted), which the probes walk. */
  private taken = 0;
  private readonly free: number[] = [];
  private used = 0;
  private count = 0;
  private readonly parsed = new Uint32Array(4);
  private readonly text = Buffer.alloc(36, DASH);

  get size(): number {
    return this.count;
  }

  /**
   * The id asked for or added last, and its handle (undefined: not held). A write asks for the
   * same id several times in a row (its collection's check, the store's, the row's, the order's
   * and each index's): each was a parse of its 36 characters and a probe of a table of a few
   * hundred thousand slots (issue 86). Set by add, cleared by remove.
   */
  private lastId: string | null = null;
  private lastHandle: number | undefined = undefined;
  /** Whether `lastId` is a UUID, its bits left in `parsed`: an add of the id just looked up (a create's) takes them rather than parsing it again. */
  private lastUuid = false;

  /** The handle of `id`, if held. */
  handleOf(id: string): number | undefined {
    if (id === this.lastId) return this.lastHandle;
    let handle: number | undefined;
    const uuid = parseUuid(id, this.parsed);
    if (!uuid) handle = this.oddHandles.get(id);
    else {
      const at = this.find(this.parsed);
      handle = at < 0 ? undefined : this.table[at]! - 1;
    }
    this.lastId = id;
    this.lastHandle = handle;
    this.lastUuid = uuid;
    return handle;
  }

  /** Holds `id` (not held yet) under a new handle, which it returns. */
  add(id: string): number {
    const handle = this.free.pop() ?? this.grow();
    this.count += 1;
    const uuid = id === this.lastId ? this.lastUuid : parseUuid(id, this.parsed);
    this.lastId = id;
    this.lastHandle = handle;
    this.lastUuid = uuid;
    if (!uuid) {
      this.kinds[handle] = 2;
      this.odd.set(handle, id);
      this.oddHandles.set(id, handle);
      return handle;
    }
    // the table made anew first, without this handle: it is placed once, below
    if ((this.taken + 1) * 2 > this.table.length) this.rehash();
    this.kinds[handle] = 1;
    this.words.set(this.parsed, handle * 4);
    this.place(handle);
    return handle;
  }

  /** Lets go of a held handle (taken again by a later add). */
  remove(handle: number): void {
    this.lastId = null;
    if (this.kinds[handle] === 2) {
      this.oddHandles.delete(this.odd.get(handle)!);
      this.odd.delete(handle);
    } else {
      this.table[this.find(this.words.subarray(handle * 4, handle * 4 + 4))] = DELETED;
    }
    this.kinds[handle] = 0;
    this.count -= 1;
    this.free.push(handle);
  }

  /** The id held under `handle`, as it was added. */
  idOf(handle: number): string {
    return this.kinds[handle] === 2 ? this.odd.get(handle)! : this.uuidText(handle).toString('latin1');
  }

  /**
   * The id held under `handle`: its characters' codes when it is a UUID (in a buffer of this
   * table's, good until the next call), else the string; for a pass over every id that would
   * otherwise make each a string (a snapshot's, which finds each record's shard).
   */
  textOf(handle: number): Uint8Array | string {
    return this.kinds[handle] === 2 ? this.odd.get(handle)! : this.uuidText(handle);
  }

  private uuidText(handle: number): Buffer {
    const text = this.text;
    for (let w = 0; w < 4; w += 1) {
      const word = this.words[handle * 4 + w]!;
      for (let d = 0; d < 8; d += 1) text[DIGIT_AT[w * 8 + d]!] = HEX_DIGITS[(word >>> (28 - 4 * d)) & 15]!;
    }
    return text;
  }

  /** Every held handle, lowest first (a handle let go is taken again: not the order they were added in). */
  *handles(): Generator<number> {
    for (let handle = 0; handle < this.used; handle += 1) if (this.kinds[handle] !== 0) yield handle;
  }

  /** The slot of `table` holding the UUID `bits`, or -1. */
  private find(bits: Uint32Array): number {
    const words = this.words;
    const mask = this.table.length - 1;
    for (let at = hash(bits) & mask; ; at = (at + 1) & mask) {
      const held = this.table[at]!;
      if (held === EMPTY) return -1;
      if (held === DELETED) continue;
      const w = (held - 1) * 4;
      if (words[w] === bits[0] && words[w + 1] === bits[1] && words[w + 2] === bits[2] && words[w + 3] === bits[3]) return at;
    }
  }

  private place(handle: number): void {
    const mask = this.table.length - 1;
    let at = hash(this.words.subarray(handle * 4, handle * 4 + 4)) & mask;
    while (this.table[at]! > 0) at = (at + 1) & mask;
    if (this.table[at] === EMPTY) this.taken += 1;
    this.table[at] = handle + 1;
  }

  /** A table twice the live UUIDs' number at least, without the deleted slots. */
  private rehash(): void {
    let length = 16;
    while (length < (this.count + 1) * 4) length *= 2;
    this.table = new Int32Array(length);
    this.taken = 0;
    for (let handle = 0; handle < this.used; handle += 1) if (this.kinds[handle] === 1) this.place(handle);
  }

  /** A new handle at the end, the columns doubled when full. */
  private grow(): number {
    if (this.used === this.kinds.length) {
      const capacity = Math.max(64, this.kinds.length * 2);
      const kinds = new Uint8Array(capacity);
      kinds.set(this.kinds);
      this.kinds = kinds;
      const words = new Uint32Array(capacity * 4);
      words.set(this.words);
      this.words = words;
    }
    return this.used++;
  }
}

/** The 128 bits of a UUID written as randomUUID writes them (36 characters, lowercase), into `out`; false for any other id. */
function parseUuid(id: string, out: Uint32Array): boolean {
  if (id.length !== 36 || id.charCodeAt(8) !== DASH || id.charCodeAt(13) !== DASH || id.charCodeAt(18) !== DASH || id.charCodeAt(23) !== DASH) return false;
  for (let w = 0; w < 4; w += 1) {
    let word = 0;
    for (let d = 0; d < 8; d += 1) {
      const code = id.charCodeAt(DIGIT_AT[w * 8 + d]!);
      const nibble = code < 128 ? NIBBLE[code]! : -1;
      if (nibble < 0) return false;
      word = (word << 4) | nibble;
    }
    out[w] = word;
  }
  return true;
}

function hash(bits: Uint32Array): number {
  let h = Math.imul(bits[0]! ^ Math.imul(bits[1]!, 0x9e3779b1) ^ Math.imul(bits[2]!, 0x85ebca77) ^ Math.imul(bits[3]!, 0xc2b2ae3d), 0x27d4eb2f);
  h ^= h >>> 15;
  return h >>> 0;
}
