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
export class OrderedIds {
  private slots: (string | undefined)[] = [];

  /** Where each id is in `slots`: a map of its own, or kept elsewhere (the store keeps a record's on its entry). */
  constructor(private readonly position: Positions = new Map<string, number>()) {}

  get size(): number {
    return this.position.size;
  }

  has(id: string): boolean {
    return this.position.has(id);
  }

  add(id: string): void {
    if (this.position.has(id)) return;
    this.position.set(id, this.slots.length);
    this.slots.push(id);
  }

  delete(id: string): boolean {
    const at = this.position.get(id);
    if (at === undefined) return false;
    this.position.delete(id);
    this.slots[at] = undefined;
    const holes = this.slots.length - this.position.size;
    if (holes > 64 && holes > this.position.size) this.sweep();
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
    const live = this.slots.filter((id): id is string => id !== undefined);
    live.forEach((id, i) => this.position.set(id, i));
    this.slots = live;
  }
}
