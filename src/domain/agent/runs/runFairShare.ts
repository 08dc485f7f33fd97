// How run slots are shared between owners (tenants: see ownerOf in records.ts). Each free slot
// goes to the owner with the fewest runs executing, each owner's runs in receipt order: so one
// owner's queue, however long, holds another's next run back by one run's length at most (the
// time a slot takes to free), never by the length of its queue. Among owners executing as many,
// the oldest waiting run goes first: with one owner the order is receipt order, as before. The
// claim of each backend orders by this rule (adapters/run-storage/inProcessRunClaims.ts in process, the
// claim statement of adapters/run-storage/pgRunClaims.ts, which says it in SQL).
//
// An owner's runs hold at most `perOwner` of one server's slots at once (AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT,
// by default all but one of them): without it a flooding owner held every slot, and another
// owner's run waited for the first of its runs to end, nearly the whole of one run when they had
// started together (issue 83). With a slot left, another owner's run starts at once. The shared
// space ('': agent-server auth off, no tenant) is never capped, as no quota counts it.

/** A run that may be claimed now: the owner it counts against. */
export interface FairShareCandidate {
  owner: string;
}

/** The owner of runs made with no tenant (agent-server auth off): never capped. */
export const SHARED_OWNER = '';

/**
 * `oldestFirst` (claimable runs in receipt order) in the order slots go to them, given how many
 * runs each owner has executing: an owner's k-th run comes at turn `executing + k`, and a turn
 * taken by several runs goes to the oldest of them. A run whose turn is past `perOwner` is left
 * out (the owner holds as many of the server's slots as it may), unless its owner is the shared space.
 */
export function fairShareOrder<T extends FairShareCandidate>(oldestFirst: readonly T[], executing: ReadonlyMap<string, number>, perOwner = Infinity): T[] {
  const turns = new Map<string, number>();
  const ranked: { candidate: T; turn: number; age: number }[] = [];
  oldestFirst.forEach((candidate, age) => {
    const turn = (turns.get(candidate.owner) ?? executing.get(candidate.owner) ?? 0) + 1;
    turns.set(candidate.owner, turn);
    if (turn <= perOwner || candidate.owner === SHARED_OWNER) ranked.push({ candidate, turn, age });
  });
  ranked.sort((a, b) => a.turn - b.turn || a.age - b.age);
  return ranked.map((r) => r.candidate);
}
