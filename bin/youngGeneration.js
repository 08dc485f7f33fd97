// The main thread's young generation held small while the process starts (issue 86).
//
// V8 makes the main thread's new space with 1 MB semi-spaces and doubles them, up to 16 MB, as
// scavenges find much of it surviving, which a start's loading (modules, compiled code, the
// project) always does: by a server's first 200 its new space had grown to 2 x 16 MB, touched
// page by page, and on a machine where fresh memory is expensive (scripts/bench/findings.md,
// h86v) a start with semi-spaces held at 4 MB used ~9% less of the main thread's CPU and ~1,500
// fewer fresh pages, with 18 scavenges instead of 13: what survives is copied once either way,
// the garbage dies in place, and a smaller space touches fewer pages. 1 MB (never grown) was
// between the two.
//
// V8 reads its growth factor at each growth, so it can be changed while the process runs
// (its semi-space bounds cannot: they are read when the isolate is made): the growth stops once
// the new space holds two 4 MB semi-spaces, and `releaseYoungGeneration` (once the server
// answers: startWarmUps) gives it V8's own factor back, so the request path and the runs find the
// young generation they found before. A semi-space size or growth factor given to node is left
// as it is.
import v8 from 'node:v8';
import { PerformanceObserver } from 'node:perf_hooks';

/** The semi-space size (bytes) the main thread's new space grows to while the process starts. */
export const START_SEMI_SPACE_BYTES = 4 * 2 ** 20;
/** V8's own growth factor (its default), given back once the start is over. */
const V8_GROWTH_FACTOR = 2;
/** Where nothing released it by then, V8's growth comes back anyway. */
const RELEASE_AFTER_MS = 30_000;
const RELEASE = Symbol.for('agentplane.releaseYoungGeneration');

/** Whether node was given a semi-space size or growth factor (command line or NODE_OPTIONS): the user's, left as it is. */
export function youngGenerationGiven(nodeOptions) {
  return nodeOptions.some((option) => /--((min|max)[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)/.test(option));
}

/** The new space's size (both semi-spaces), in bytes. */
export function newSpaceBytes() {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Stops the main thread's new space growing past two START_SEMI_SPACE_BYTES semi-spaces until
 * `releaseYoungGeneration()`. The check follows each collection (V8 grows the space in one), so
 * the space may pass the size by one growth where two come before the check runs.
 */
export function holdYoungGeneration() {
  if (globalThis[RELEASE] || youngGenerationGiven([...process.execArgv, process.env.NODE_OPTIONS ?? ''])) return;
  let held = false;
  const hold = () => {
    if (held || newSpaceBytes() < 2 * START_SEMI_SPACE_BYTES) return;
    held = true;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    observer.disconnect();
  };
  const observer = new PerformanceObserver(hold);
  observer.observe({ entryTypes: ['gc'] });
  // a process that never serves (a CLI command), or whose server never reaches its warm-ups, gets it back anyway
  const fallback = setTimeout(() => globalThis[RELEASE]?.(), RELEASE_AFTER_MS).unref();
  globalThis[RELEASE] = () => {
    delete globalThis[RELEASE];
    clearTimeout(fallback);
    observer.disconnect();
    if (held) v8.setFlagsFromString(`--semi-space-growth-factor=${V8_GROWTH_FACTOR}`);
    held = true; // a collection's check still queued changes nothing now
  };
}

/** Gives the new space V8's own growth back (a no-op where nothing held it). */
export function releaseYoungGeneration() {
  globalThis[RELEASE]?.();
}
