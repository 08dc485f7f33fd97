// Sets a V8 flag for the whole process unless node was given it.
//
// The server tunes a few of V8's defaults for its own workload (earlyOptimisation.ts,
// idle/youngGenerationGrowth.ts, run-workers/youngGenerationFloor.ts). A flag given to node,
// on its command line or in NODE_OPTIONS, is the user's and is left as it is. Each flag is set
// at most once: V8 reads it at the points it names (an isolate's creation, a budget reset, a
// growth), so setting it again later changes nothing a user could rely on.
import v8 from 'node:v8';

/** Whether one of node's options (its command line, or NODE_OPTIONS as one string) names the flag. */
export function nodeWasGiven(given: RegExp, nodeOptions: readonly string[]): boolean {
  return nodeOptions.some((option) => given.test(option));
}

const alreadySet = new Set<string>();

/**
 * Sets `--name=value` for every isolate of the process, once per name; not where node's options
 * match `given` (a pattern that accepts the flag's dashes or underscores, and its relatives).
 */
export function setV8FlagUnlessGiven(name: string, value: number, given: RegExp): void {
  if (alreadySet.has(name)) return;
  alreadySet.add(name);
  if (nodeWasGiven(given, [...process.execArgv, process.env.NODE_OPTIONS ?? ''])) return;
  v8.setFlagsFromString(`--${name}=${value}`);
}
