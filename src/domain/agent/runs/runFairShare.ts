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

/** A claimable run as a claim finds it: its owner and its id (ids sort as runs are received: uuid7). */
export interface ClaimableRun extends FairShareCandidate {
  runId: string;
}

/**
 * The first `want` of fairShareOrder(candidates in run id order, executing, perOwner), from the
 * candidates in any order. A claim asks for as many as it has free slots, mostly one (a run
 * ended), among every waiting thread's next run: sorting them all twice was ~2% of the main
 * thread's work a run with 100 threads waiting (issue 91). With one owner the order is run id
 * order, and the few first are picked in passes over the candidates; otherwise the whole order.
 */
export function firstInFairOrder<T extends ClaimableRun>(
  candidates: readonly T[],
  executing: ReadonlyMap<string, number>,
  perOwner = Infinity,
  want = Infinity,
): T[] {
  const owner = candidates[0]?.owner;
  if (owner === undefined || want <= 0) return [];
  const oneOwner = candidates.every((c) => c.owner === owner);
  if (!oneOwner || want * 4 >= candidates.length) {
    const oldestFirst = [...candidates].sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
    return fairShareOrder(oldestFirst, executing, perOwner).slice(0, want);
  }
  const allowed = owner === SHARED_OWNER ? Infinity : Math.max(0, perOwner - (executing.get(owner) ?? 0));
  const picked: T[] = [];
  let after: string | undefined;
  while (picked.length < Math.min(want, allowed)) {
    let least: T | undefined;
    for (const c of candidates) {
      if ((after === undefined || c.runId > after) && (least === undefined || c.runId < least.runId)) least = c;
    }
    if (least === undefined) break;
    picked.push(least);
    after = least.runId;
  }
  return picked;
}
