// V8 optimises the server's hot code, and the graphs' in the run workers, after an eighth of
// the work it waits for by default.
//
// V8 counts what a function executes against an interrupt budget (67,584 bytes of bytecode in
// node 20) before it considers optimising it. A server runs a large body of code, ours and
// LangGraph's and LangChain's, each of whose functions is hot only for part of a request or a
// run; at the default a fresh server was still optimising it hundreds of runs in: after the
// bench's 570 warm-up runs, 288 optimisations finished during the next 1,000 runs over 100
// threads, 189 in the 1,000 after, 45 by the fourth, and the rounds did 239, 270, 305, 368 runs/s
// (scripts/bench/runsCompiles.ts, h86 in scripts/bench/findings.md). At an eighth the same code
// is optimised during the warm-up and the first timed round runs it: 1,000 runs over 100 threads
// through the SDK 233 → 285 runs/s, V8's helper threads' CPU 1.10 → 0.62 ms a run
// (freshThreadsCpu.ts, fresh servers alternating). V8 reads the flag each time it resets a
// function's budget, in every isolate of the process (the run workers' too); a budget given to
// node by the user is left as it is.
import { nodeWasGiven, setV8FlagUnlessGiven } from './flagUnlessGiven.ts';

/** V8's interrupt budget for the server's process: an eighth of node 20's default (67,584). */
export const INTERRUPT_BUDGET = 8448;

const BUDGET_GIVEN = /--interrupt[-_]budget(?![-_])/;

/** Whether node was given an interrupt budget (on its command line or in NODE_OPTIONS): the user's, left as it is. */
export function interruptBudgetGiven(nodeOptions: readonly string[]): boolean {
  return nodeWasGiven(BUDGET_GIVEN, nodeOptions);
}

/** Sets V8's interrupt budget for the process, once; not where node was given one. */
export function optimiseHotCodeSooner(): void {
  setV8FlagUnlessGiven('interrupt-budget', INTERRUPT_BUDGET, BUDGET_GIVEN);
}
