// An insertion-ordered set of ids that can be walked from either end without copying, so a
// newest-first page of a large collection costs the page, not the collection. Deletions
// leave holes that are swept once they outnumber the live ids.

/** Each id's index in the ordered slots. */
export interface Positions {
  readonly size: number;
  has(id: string): boolean;
  get(id: string): number | undefined;
  set(id: string, at: number): void;
  delete(id: string): void;
}
/**
 * Up to this many slots, a set of its own finds an id by walking them rather than in a map: an
 * index holds one set per value (a thread's checkpoints, a checkpoint's writes), mostly of a few
 * ids, and an empty Map alone weighs more than such a walk costs (issue 91).
 */
const WALKED_SLOTS = 16;

export class OrderedIds {
  private slots: (string | undefined)[] = [];
  /** Live ids while positions are found by walking `slots`. */
  private walked = 0;

  /** Where each id is in `slots`: kept elsewhere (the store keeps a record's on its entry), or null: its own, made once it is large. */
  constructor(private position: Positions | null = null) {}

  get size(): number {
    return this.position ? this.position.size : this.walked;
  }

  has(id: string): boolean {
    return this.position ? this.position.has(id) : this.slots.includes(id);
  }

  add(id: string): void {
    if (this.has(id)) return;
    if (!this.position && this.slots.length >= WALKED_SLOTS) {
      this.position = new OwnPositions();
      this.slots.forEach((held, i) => held !== undefined && this.position!.set(held, i));
    }
    if (this.position) this.position.set(id, this.slots.length);
    else this.walked += 1;
    this.slots.push(id);
  }

  delete(id: string): boolean {
    const at = this.position ? this.position.get(id) : this.slots.indexOf(id);
    if (at === undefined || at < 0) return false;
    if (this.position) this.position.delete(id);
    else this.walked -= 1;
    this.slots[at] = undefined;
    const holes = this.slots.length - this.size;
    if (holes > 64 && holes > this.size) this.sweep();
    return true;
  }

  *forward(): Generator<string> {
    const slots = this.slots;
    for (let i = 0; i < slots.length; i += 1) {
      const id = slots[i];
      if (id !== undefined) yield id; // a sweep mid-walk leaves this array intact
    }
  }

  *backward(): Generator<string> {
    const slots = this.slots;
    for (let i = slots.length - 1; i >= 0; i -= 1) {
      const id = slots[i];
      if (id !== undefined) yield id; // a sweep mid-walk leaves this array intact
    }
  }

  private sweep(): void {
    if (this.position instanceof OwnPositions) this.position.forgetDeleted();
    const live = this.slots.filter((id): id is string => id !== undefined);
    live.forEach((id, i) => this.position!.set(id, i));
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
  private map = new Map<string, number>();
  private deleted = 0;

  get size(): number {
    return this.map.size - this.deleted;
  }

  has(id: string): boolean {
    return (this.map.get(id) ?? -1) >= 0;
  }

  get(id: string): number | undefined {
    const at = this.map.get(id);
    return at !== undefined && at >= 0 ? at : undefined;
  }

  set(id: string, at: number): void {
    if (this.map.get(id) === DELETED) this.deleted -= 1;
    this.map.set(id, at);
  }

  delete(id: string): void {
    if (!this.has(id)) return;
    this.map.set(id, DELETED);
    this.deleted += 1;
  }

  /** Drops the ids marked deleted (a sweep's: there are at most as many as the holes it sweeps). */
  forgetDeleted(): void {
    if (this.deleted === 0) return;
    const live = new Map<string, number>();
    for (const [id, at] of this.map) if (at !== DELETED) live.set(id, at);
    this.map = live;
    this.deleted = 0;
  }
}
