// How run slots are shared between owners (tenants: see ownerOf in records.ts). Each free slot
// goes to the owner with the fewest runs executing, each owner's runs in receipt order: so one
// owner's queue, however long, holds another's next run back by one run's length at most (the
// time a slot takes to free), never by the length of its queue. Among owners executing as many,
// the oldest waiting run goes first: with one owner the order is receipt order, as before. The
// claim of each backend orders by this rule (adapters/run-storage/inProcessRunClaims.ts in process, the
// claim statement of adapters/run-storage/pgRunClaims.ts, which says it in SQL).

/** A run that may be claimed now: the owner it counts against. */
export interface FairShareCandidate {
  owner: string;
}

/**
 * `oldestFirst` (claimable runs in receipt order) in the order slots go to them, given how many
 * runs each owner has executing: an owner's k-th run comes at turn `executing + k`, and a turn
 * taken by several runs goes to the oldest of them.
 */
export function fairShareOrder<T extends FairShareCandidate>(oldestFirst: readonly T[], executing: ReadonlyMap<string, number>): T[] {
  const turns = new Map<string, number>();
  const ranked = oldestFirst.map((candidate, age) => {
    const turn = (turns.get(candidate.owner) ?? executing.get(candidate.owner) ?? 0) + 1;
    turns.set(candidate.owner, turn);
    return { candidate, turn, age };
  });
  ranked.sort((a, b) => a.turn - b.turn || a.age - b.age);
  return ranked.map((r) => r.candidate);
}
