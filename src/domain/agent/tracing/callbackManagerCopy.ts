// LangChain's CallbackManager.copy, the same result in linear time. Every runnable a graph run
// invokes configures a callback manager from its config, and every child run copies its
// parent's; the copy adds the metadata one key at a time, each addition spreading the object
// built so far and listing the inheritable keys again: quadratic in the keys. A run's metadata
// has 17 of them (the run's, the assistant's and LangGraph's per task), and the run tracer's
// handler makes a manager exist for every runnable: copying metadata was a fifth of a
// LangGraph run's CPU (alternating servers, 100 threads × 10 runs, 8 rounds: 5.6 against
// 4.5 ms a run). LangGraph's server pays none of it only because it passes no handler.
//
// Replaced only while the class's copy is the one this was written against (its source is
// fingerprinted): another @langchain/core keeps its own. test/domain/agent/tracing/callbackManagerCopy.test.ts
// compares both on generated managers.
import { CallbackManager } from '@langchain/core/callbacks/manager';
import { bothBuilds } from './bothBuilds.ts';
import { knownReplacement } from './knownReplacement.ts';

type Manager = CallbackManager;
type Copy = Manager['copy'];

/** sha256 of `CallbackManager.prototype.copy.toString()` in @langchain/core 1.2.13 (its ESM and CommonJS builds alike). */
const KNOWN_COPY = new Set(['3db910c718ee25f01548e12353dd719adbd631a16e4eabde564615f067fbcc27']);

/** `key: value` made an own property as a spread makes it (`__proto__` included, which assignment would not make). */
function own(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** What `managerClass`'s copy makes, built directly: the same handlers, tags and metadata with the same inheritance, in the same order. */
export function linearCopy(managerClass: typeof CallbackManager): Copy {
  return function copy(this: Manager, additionalHandlers = [], inherit = true): Manager {
    const manager = new managerClass(this._parentRunId);
    for (const handler of this.handlers) manager.addHandler(handler, this.inheritableHandlers.includes(handler));
    for (const tag of this.tags) manager.addTags([tag], this.inheritableTags.includes(tag));
    // each key once, in its order, with its value in `metadata`; inheritable when it was
    const metadata: Record<string, unknown> = {};
    const inheritable: Record<string, unknown> = {};
    const inheritableKeys = new Set(Object.keys(this.inheritableMetadata));
    for (const key of Object.keys(this.metadata)) {
      own(metadata, key, this.metadata[key]);
      if (inheritableKeys.has(key)) own(inheritable, key, this.metadata[key]);
    }
    manager.metadata = metadata;
    manager.inheritableMetadata = inheritable;
    for (const handler of additionalHandlers) {
      if (manager.handlers.filter((h) => h.name === 'console_callback_handler').some((h) => h.name === handler.name)) continue;
      manager.addHandler(handler, inherit);
    }
    return manager;
  };
}

/** The ESM class, and the CommonJS one once something has loaded it (bothBuilds.ts). */
export const managerClasses = bothBuilds(CallbackManager, '@langchain/core/callbacks/manager', 'CallbackManager');

const copies = knownReplacement<typeof CallbackManager, Copy>({
  classes: managerClasses,
  known: KNOWN_COPY,
  get: (managerClass) => managerClass.prototype.copy,
  set: (managerClass, copy) => (managerClass.prototype.copy = copy),
  replacement: linearCopy,
});

/** The copy `managerClass` came with. */
export const originalCopy = (managerClass: typeof CallbackManager): Copy => copies.original(managerClass);

/** Replaces copy on each class whose copy is the known one; how many classes have the linear copy (knownReplacement.ts). */
export const useLinearCallbackCopy = (): number => copies.use();
