// An insertion-ordered set of ids that can be walked from either end without copying, so a
// newest-first page of a large collection costs the page, not the collection. Deletions
// leave holes that are swept once they outnumber the live ids. A set of a packed collection's
// records (packedRecords.ts) holds their ids' numbers rather than the ids (issue 91): a string
// each held ~56 bytes a run for the order and each thread's runs.

/** What a set holds for an id: the id itself, or the number a packed collection gives it. */
export type Held = string | number;

/** Each held id's index in the ordered slots. */
export interface Positions {
  readonly size: number;
  has(held: Held): boolean;
  get(held: Held): number | undefined;
  set(held: Held, at: number): void;
  delete(held: Held): void;
}

/** A packed collection's numbers for the ids of its records, while they are held. */
export interface IdHandles {
  handleOf(id: string): number | undefined;
  idOf(handle: number): string;
}
/**
 * Up to this many slots, a set of its own finds an id by walking them rather than in a map: an
 * index holds one set per value (a thread's checkpoints, a checkpoint's writes), mostly of a few
 * ids, and an empty Map alone weighs more than such a walk costs (issue 91).
 */
const WALKED_SLOTS = 16;

export class OrderedIds {
  private slots: (Held | undefined)[] = [];
  /** Live ids while positions are found by walking `slots`. */
  private walked = 0;

  /**
   * `position`: where each id is in `slots`: kept elsewhere (the store keeps a record's on its
   * entry), or null: its own, made once it is large. `handles`: the numbers held for the ids
   * (a packed collection's), or null: the ids themselves.
   */
  constructor(
    private position: Positions | null = null,
    private readonly handles: IdHandles | null = null,
  ) {}

  get size(): number {
    return this.position ? this.position.size : this.walked;
  }

  has(id: string): boolean {
    const held = this.heldOf(id);
    return held !== undefined && this.holds(held);
  }

  add(id: string): void {
    const held = this.heldOf(id);
    if (held === undefined) throw new Error(`no number for ${id}: a packed record is set before it is ordered`);
    if (this.holds(held)) return;
    if (!this.position && this.slots.length >= WALKED_SLOTS) {
      this.position = new OwnPositions();
      this.slots.forEach((h, i) => h !== undefined && this.position!.set(h, i));
    }
    if (this.position) this.position.set(held, this.slots.length);
    else this.walked += 1;
    this.slots.push(held);
  }

  delete(id: string): boolean {
    const held = this.heldOf(id);
    if (held === undefined) return false;
    const at = this.position ? this.position.get(held) : this.slots.indexOf(held);
    if (at === undefined || at < 0) return false;
    if (this.position) this.position.delete(held);
    else this.walked -= 1;
    this.slots[at] = undefined;
    const holes = this.slots.length - this.size;
    if (holes > 64 && holes > this.size) this.sweep();
    return true;
  }

  *forward(): Generator<string> {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 1) {
      const held = slots[i];
      if (held !== undefined) yield this.idOf(held); // a sweep mid-walk leaves this array intact
    }
  }

  *backward(): Generator<string> {
    const slots = this.slots;
    for (let i = slots.length - 1; i >= 0; i -= 1) {
      const held = slots[i];
      if (held !== undefined) yield this.idOf(held); // a sweep mid-walk leaves this array intact
    }
  }

  private heldOf(id: string): Held | undefined {
    return this.handles ? this.handles.handleOf(id) : id;
  }

  private idOf(held: Held): string {
    return typeof held === 'number' ? this.handles!.idOf(held) : held;
  }

  private holds(held: Held): boolean {
    return this.position ? this.position.has(held) : this.slots.includes(held);
  }

  private sweep(): void {
    if (this.position instanceof OwnPositions) this.position.forgetDeleted();
    const live = this.slots.filter((held): held is Held => held !== undefined);
    live.forEach((held, i) => this.position!.set(held, i));
    this.slots = live;
  }
}

const DELETED = -1;

/**
 * A set's own positions, once it is large. A deleted id stays in the map, marked deleted, until
 * the next sweep: deleting a key from a Map and setting it again leaves the deleted copy in the
 * key's hash chain until the table is rebuilt, and an id that leaves an index and comes back
 * again and again (a thread's status, idle → busy → idle, every run) made each lookup of it walk
 * thousands of copies in a large index (~45 µs with 20,000 ids; issue 86). Setting the value
 * of a key the map holds changes it in place.
 */
class OwnPositions implements Positions {
  private map = new Map<Held, number>();
  private deleted = 0;

  get size(): number {
    return this.map.size - this.deleted;
  }

  has(held: Held): boolean {
    return (this.map.get(held) ?? -1) >= 0;
  }

  get(held: Held): number | undefined {
    const at = this.map.get(held);
    return at !== undefined && at >= 0 ? at : undefined;
  }

  set(held: Held, at: number): void {
    if (this.map.get(held) === DELETED) this.deleted -= 1;
    this.map.set(held, at);
  }

  delete(held: Held): void {
    if (!this.has(held)) return;
    this.map.set(held, DELETED);
    this.deleted += 1;
  }

  /** Drops the ids marked deleted (a sweep's: there are at most as many as the holes it sweeps). */
  forgetDeleted(): void {
    if (this.deleted === 0) return;
    const live = new Map<Held, number>();
    for (const [held, at] of this.map) if (at !== DELETED) live.set(held, at);
    this.map = live;
    this.deleted = 0;
  }
}
