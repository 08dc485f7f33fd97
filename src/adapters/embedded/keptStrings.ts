// The strings memory keeps of paged records (pagedCollections.ts), shared rather than copied
// (issue 91). The fields kept are mostly the same few strings over and over: a thread's id in
// each of its checkpoints, writes and runs, a checkpoint's key in each of its writes, a status.
// Parsed from a saved index or a journal line, each would be a string of its own (~60–120 bytes
// a time); one copy each is kept instead.

/** Gives back an equal string already held when there is one. */
export interface KeptStrings {
  share(value: string): string;
}

/** For a start: every string seen while loading, let go once loaded. */
export class LoadStrings implements KeptStrings {
  private readonly seen = new Map<string, string>();
  share(value: string): string {
    const held = this.seen.get(value);
    if (held !== undefined) return held;
    this.seen.set(value, value);
    return value;
  }

  /** Lets go of every string seen (the load is over: what is kept holds its own). */
  clear(): void {
    this.seen.clear();
  }
}

/** While running: the last few strings kept, as a run writes its records one after the other (a bounded look-back, never a growing pool). */
export class RecentStrings implements KeptStrings {
  private readonly recent: string[] = [];
  private next = 0;
  constructor(private readonly size = 16) {}
  share(value: string): string {
    for (const held of this.recent) if (held === value) return held;
    this.recent[this.next] = value;
    this.next = (this.next + 1) % this.size;
    return value;
  }
}
