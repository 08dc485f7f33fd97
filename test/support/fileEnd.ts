// A support module's clean-up of what it made for a test file (stores, their PostgreSQL pools),
// at the end of each file that loaded it. A hook the module registers as it loads (`after` at its
// top level) is its first importer's only where several files share a test process
// (scripts/run-tests.ts, groupEntry): the module loads once, so what the later files made stayed
// open — PostgreSQL pools held two of npm test's processes for the runner's whole 10-s grace
// (CI on 59a281d7). The group entry keeps these hooks and runs them after each file's own.
import { after } from 'node:test';

/** Where a process's group entry keeps the hooks (scripts/run-tests.ts, groupEntry); unset in a process of one file. */
export const FILE_END_HOOKS = Symbol.for('agentplane.test.fileEndHooks');

/**
 * Call at a support module's top level: `clean` runs when the file that loaded the module ends,
 * and, in a process its files share, when each file after it ends (each its own store, pool, …).
 */
export function afterEachFile(clean: () => unknown): void {
  const hooks = (globalThis as { [FILE_END_HOOKS]?: (() => unknown)[] })[FILE_END_HOOKS];
  if (hooks) hooks.push(clean);
  else after(clean);
}
