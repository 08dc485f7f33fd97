// The main thread's young generation back to its full size in one step after an idle stretch.
//
// V8 shrinks an isolate's new space on the first collection after a stretch in which it
// allocated little (down to 1 MB semi-spaces: youngGenerationFloor.ts says how), and grows it
// back by --semi-space-growth-factor (2) each time as much as its size has survived scavenges.
// A request's garbage dies young, so that took hundreds of scavenges: after 45 s idle, a burst of
// 20,000 GET /ok ran in ~3.3 MB semi-spaces from start to end, 109 scavenges against 16–17 on a
// server that had stayed busy (d5486dc: 21), each paying a scavenge's fixed walk of the roots
// (h86r22, scripts/bench/findings.md). At 16 the first growth takes it to V8's 16 MB maximum: 38
// scavenges in the same burst. Its size at rest is left to V8 as before (shrunk, for idle RSS).
// V8 reads the factor at each growth, for every isolate (the run workers' too, which start at 8 MB
// of their own and reach the same maximum); a factor given to node by the user is left as it is.
import { nodeWasGiven, setV8FlagUnlessGiven } from '../v8/flagUnlessGiven.ts';

/** By how much V8 grows a young generation that fills with survivors: at once to its maximum. */
export const SEMI_SPACE_GROWTH_FACTOR = 16;

const FACTOR_GIVEN = /--semi[-_]space[-_]growth[-_]factor/;

/** Whether node was given a growth factor (on its command line or in NODE_OPTIONS): the user's, left as it is. */
export function growthFactorGiven(nodeOptions: readonly string[]): boolean {
  return nodeWasGiven(FACTOR_GIVEN, nodeOptions);
}

/** Sets V8's growth factor for young generations, once; not where node was given one. */
export function growYoungGenerationAtOnce(): void {
  setV8FlagUnlessGiven('semi-space-growth-factor', SEMI_SPACE_GROWTH_FACTOR, FACTOR_GIVEN);
}
