// Runs a fast-check property and turns a failure into a readable report: what is wrong,
// the shrunk request as a curl command, and how to replay the exact case.
import fc from 'fast-check';

/** Runs per property; FUZZ_RUNS raises the depth for longer runs. */
export const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 40));
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** Thrown by a property with the problems found and the request that caused them. */
export class Violation extends Error {
  constructor(
    readonly problems: string[],
    readonly curl: string,
    readonly response: string,
  ) {
    super(`${problems.join('\n')}\n  reproduce: ${curl}\n  answer:    ${response}`);
  }
}

export interface PropertyFailure {
  title: string;
  numShrinks: number;
  error: unknown;
  report: string;
}

/** `examples` run first, all of them, then `numRuns` random cases (boundary cases derived from the spec). */
export async function checkProperty<T>(
  title: string,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns = RUNS,
  examples: T[] = [],
): Promise<PropertyFailure | null> {
  const details = await fc.check(fc.asyncProperty(arb, predicate), {
    // fast-check counts the examples among numRuns: every example runs, then numRuns random cases
    numRuns: numRuns + examples.length,
    examples: examples.map((e) => [e] as [T]),
    ...(SEED === undefined ? {} : { seed: SEED }),
    ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
  });
  if (!details.failed) return null;
  const error = details.errorInstance;
  const message = error instanceof Error ? error.message : String(error);
  const report = [
    `${title}: ${message}`,
    `  (minimal case after ${details.numShrinks} shrink(s); replay with FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''})`,
  ].join('\n');
  return { title, numShrinks: details.numShrinks, error, report };
}

export async function assertProperty<T>(
  title: string,
  arb: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  numRuns = RUNS,
  examples: T[] = [],
): Promise<void> {
  const failure = await checkProperty(title, arb, predicate, numRuns, examples);
  if (failure) throw new Error(failure.report);
}
