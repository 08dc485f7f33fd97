// A run worker's young generation keeps room for its runs after an idle stretch (issue 89).
//
// V8 shrinks an isolate's new space on the first collection after a stretch in which it
// allocated under ~1 MB/s over its last seconds, down to its initial size (1 MB semi-spaces), and
// grows it back only once as much as its size has survived scavenges. A run worker allocates
// ~3.5 MB a run and sits idle between a user's runs: after a start left alone for a while, the
// collection after its first run (the idle scavenge, idleScavenge.ts) shrank it to 1 MB, and each
// of the next ~8 runs met one to three scavenges inside it, before its first token too, while V8
// grew it back to 2, 4, then 8 MB (firstRun.ts with FIRST_RUN_GC=1 after a 12-s settle:
// scripts/bench/findings.md, "h89, session 9"). The first run never met them; the later runs, which
// its first token is judged against, did.
//
// V8 takes the floor from --min-semi-space-size when it makes an isolate: set here, before the
// pool's first worker, it holds for every isolate made after (the run workers, and the schema
// reader's thread, which grows past it anyway), not for the main thread's, made at the process's
// start. 8 MB holds a run's allocations twice over; V8 still grows the space to its own 16 MB
// under load. A semi-space size given to node by the user is left as it is.
import { nodeWasGiven, setV8FlagUnlessGiven } from '../../runtime/v8/flagUnlessGiven.ts';

/** The least size (MB) V8 keeps a run worker's semi-spaces at: its young generation holds two of them. */
export const RUN_WORKER_MIN_SEMI_SPACE_MB = 8;

const SEMI_SPACE_GIVEN = /--(min|max)[-_]semi[-_]space[-_]size/;

/** Whether node was given a semi-space size (on its command line or in NODE_OPTIONS): the user's, left as it is. */
export function semiSpaceGiven(nodeOptions: readonly string[]): boolean {
  return nodeWasGiven(SEMI_SPACE_GIVEN, nodeOptions);
}

/** Sets V8's floor for the semi-spaces of every isolate made from now on, once; not where node was given a semi-space size. */
export function keepYoungGenerationFloor(): void {
  setV8FlagUnlessGiven('min-semi-space-size', RUN_WORKER_MIN_SEMI_SPACE_MB, SEMI_SPACE_GIVEN);
}
