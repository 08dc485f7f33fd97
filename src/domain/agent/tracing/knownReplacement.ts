// One method of a @langchain/core class replaced on each of its builds (bothBuilds.ts), and only
// while its source is one a replacement was written against: another @langchain/core keeps its
// own. callbackManagerCopy.ts and generatorStream.ts replace one each; lazyRootRunTree.ts checks
// a function's source the same way.
import { createHash } from 'node:crypto';

type Method = (...args: never[]) => unknown;

/** sha256 of a function's source: what tells the method a replacement was written against from another. */
export const fingerprint = (fn: Method): string => createHash('sha256').update(fn.toString()).digest('hex');

export interface KnownReplacement<C, M extends Method> {
  /**
   * Replaces the method on each class whose method is a known one; how many classes have the
   * replacement. Called again before each run: a graph loaded since may have brought the CommonJS class.
   */
  use(): number;
  /** The method `target` came with (taken before it was replaced). */
  original(target: C): M;
}

/**
 * The replacement of the method `get` reads and `set` writes on each of `classes()`, by
 * `replacement(target)`, where the method's fingerprint is among `known`.
 */
export function knownReplacement<C extends object, M extends Method>(options: {
  classes: () => C[];
  known: ReadonlySet<string>;
  get: (target: C) => M;
  set: (target: C, method: M) => void;
  replacement: (target: C) => M;
}): KnownReplacement<C, M> {
  const originals = new Map<C, M>();
  const ours = new WeakSet<M>();
  // methods found not to be a known one: each fingerprinted once
  const notKnown = new WeakSet<M>();
  return {
    use() {
      let replaced = 0;
      for (const target of options.classes()) {
        const current = options.get(target);
        if (ours.has(current)) replaced += 1;
        else if (!notKnown.has(current) && options.known.has(fingerprint(current))) {
          originals.set(target, current);
          const method = options.replacement(target);
          ours.add(method);
          options.set(target, method);
          replaced += 1;
        } else notKnown.add(current);
      }
      return replaced;
    },
    original: (target) => originals.get(target) ?? options.get(target),
  };
}
