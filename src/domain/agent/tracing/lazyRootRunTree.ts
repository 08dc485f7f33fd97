// The root run tree LangChain sets around every runnable it invokes, made when it is first read.
//
// @langchain/core's runWithConfig, called for each of a LangGraph run's nodes, writes and
// branches (10 times in a one-node graph's run), makes a langsmith RunTree with tracing
// disabled whenever no LangChain tracer is configured: it only carries the runnable's config
// (`extra`) and LangChain's context variables to the code the runnable calls. Its constructor
// reads the environment, makes a UUIDv7 and a dotted order and defines ~30 properties: 20-30 µs
// a tree (a one-node graph with its MemorySaver alone: 1,410 -> 1,087 µs of CPU a run made
// lazily; a run worker, whose environment reads and random values are cheap already, spent
// 80-140 µs a run in RunTree's constructor on 100 threads). Almost nothing reads the tree:
// LangChain's getRunnableConfig reads `extra` alone. So the tree is made lazily: a Proxy of an
// object with the tree's prototype, its name, tracing flag and `extra`, that makes the real
// RunTree (with the start time it was asked for at) and takes its fields the first time any
// other field is read, written, listed or tested (a `traceable` creating its child, a spread,
// setContextVariable's copy, JSON). What reads it then sees what the eager tree held.
//
// Replaced only while runWithConfig is the one this was written against (its source is
// fingerprinted) and @langchain/core imports the langsmith this module does: another copy keeps
// its own. test/domain/agent/tracing/lazyRootRunTree.test.ts compares both.
import { createRequire } from 'node:module';
import path from 'node:path';
import { inspect } from 'node:util';
import { RunTree } from 'langsmith';
import { CallbackManager } from '@langchain/core/callbacks/manager';
import { AsyncLocalStorageProviderSingleton, _CONTEXT_VARIABLES_KEY } from '@langchain/core/singletons';
import { fingerprint } from './knownReplacement.ts';

type Provider = typeof AsyncLocalStorageProviderSingleton;
type RunWithConfig = Provider['runWithConfig'];
type Tree = RunTree & Record<PropertyKey, unknown>;

/** sha256 of `AsyncLocalStorageProviderSingleton.runWithConfig.toString()` in @langchain/core 1.2.13. */
const KNOWN_RUN_WITH_CONFIG = new Set(['f9cadd9d3efec5f43ffb7fd99e6f8d306bfcbdcc764078eecbef00728ff5d0c4']);

/** Where LangChain keeps a runnable's config on the tree (`getRunnableConfig` reads it there). */
const LC_CHILD_KEY = Symbol.for('lc:child_config');
/** The name and tracing flag runWithConfig gives its root trees. */
const ROOT_NAME = '<runnable_lambda>';

/** The fields a root tree's constructor sets, but those the lazy tree holds from the start. */
const LAZY_FIELDS: ReadonlySet<string> = (() => {
  const fields = new Set(Object.keys(new RunTree({ name: ROOT_NAME, tracingEnabled: false })));
  for (const held of ['name', 'tracingEnabled', 'extra']) fields.delete(held);
  return fields;
})();

const lazyField = (key: PropertyKey): boolean => typeof key === 'string' && LAZY_FIELDS.has(key);

/**
 * A tree not made yet keeps here the start time it was asked for (undefined once made): a
 * property of its object, not a closure, so a tree is its object and a Proxy of one handler.
 * Configurable, so the Proxy may leave it out of the tree's keys.
 */
const PENDING = Symbol('start time of a run tree not made yet');

/** Makes the real tree, once, and takes its fields; what was set on the tree before stays (its extra). */
function make(tree: Tree): void {
  const startTime = tree[PENDING] as number | undefined;
  if (startTime === undefined) return;
  tree[PENDING] = undefined;
  const real = new RunTree({ name: ROOT_NAME, tracingEnabled: false, start_time: startTime }) as Tree;
  for (const key of Object.keys(real)) if (!Object.hasOwn(tree, key)) tree[key] = real[key];
}

/** Every lazy tree's traps: a field the tree does not hold yet makes it first; listing its keys makes it. */
const lazyTraps: ProxyHandler<Tree> = {
  get(tree, key) {
    if (lazyField(key)) make(tree);
    return Reflect.get(tree, key);
  },
  set(tree, key, value) {
    if (lazyField(key)) make(tree);
    return Reflect.set(tree, key, value);
  },
  has(tree, key) {
    if (lazyField(key)) make(tree);
    return Reflect.has(tree, key);
  },
  ownKeys(tree) {
    make(tree);
    return Reflect.ownKeys(tree).filter((key) => key !== PENDING);
  },
  getOwnPropertyDescriptor(tree, key) {
    if (lazyField(key)) make(tree);
    return key === PENDING ? undefined : Reflect.getOwnPropertyDescriptor(tree, key);
  },
  defineProperty(tree, key, descriptor) {
    if (lazyField(key)) make(tree);
    return Reflect.defineProperty(tree, key, descriptor);
  },
  deleteProperty(tree, key) {
    if (lazyField(key)) make(tree);
    return Reflect.deleteProperty(tree, key);
  },
};

/**
 * The prototype of a lazy tree's object: RunTree's, and util.inspect's hook, so a tree logged
 * before it is made shows the made tree (inspect looks through a Proxy to its object).
 */
const lazyPrototype = Object.create(RunTree.prototype, {
  [inspect.custom]: {
    value(this: Tree, depth: number, options: object) {
      make(this);
      // the made tree's fields under RunTree's name, as an eager tree shows
      return inspect(Object.assign(Object.create(RunTree.prototype) as object, this), { ...options, depth });
    },
  },
}) as object;

/** A root run tree as runWithConfig makes one, whose fields are made when first used. */
export function lazyRootRunTree(): RunTree {
  const target = Object.create(lazyPrototype) as Tree;
  target.name = ROOT_NAME;
  target.tracingEnabled = false;
  // what the constructor makes of a config without extra or metadata
  target.extra = { metadata: {} };
  Object.defineProperty(target, PENDING, { value: Date.now(), writable: true, configurable: true });
  return new Proxy(target, lazyTraps) as RunTree;
}

/** runWithConfig as @langchain/core 1.2.13 has it, its root tree made lazily. */
const lazyRunWithConfig: RunWithConfig = function (this: Provider, config, callback, avoidCreatingRootRunTree) {
  const manager = CallbackManager._configureSync(config?.callbacks, undefined, config?.tags, undefined, config?.metadata);
  const storage = this.getInstance();
  const previous = storage.getStore() as Record<PropertyKey, unknown> | undefined;
  const parentRunId = manager?.getParentRunId();
  const tracer = manager?.handlers?.find((handler) => handler?.name === 'langchain_tracer') as
    { getRunTreeWithTracingConfig(id: string): RunTree | undefined } | undefined;
  let tree: Record<PropertyKey, unknown> | undefined;
  if (tracer && parentRunId) tree = tracer.getRunTreeWithTracingConfig(parentRunId) as Tree | undefined;
  else if (!avoidCreatingRootRunTree) tree = lazyRootRunTree() as Tree;
  if (tree) tree.extra = { ...(tree.extra as object), [LC_CHILD_KEY]: config };
  if (previous !== undefined && previous[_CONTEXT_VARIABLES_KEY] !== undefined) {
    tree ??= {};
    tree[_CONTEXT_VARIABLES_KEY] = previous[_CONTEXT_VARIABLES_KEY];
  }
  return storage.run(tree, callback);
};

const require = createRequire(import.meta.url);
/** Whether @langchain/core resolves the langsmith package this module imported (one RunTree class). */
const sameLangsmith = (() => {
  try {
    const ours = path.dirname(require.resolve('langsmith/package.json'));
    const cores = path.dirname(createRequire(require.resolve('@langchain/core/package.json')).resolve('langsmith/package.json'));
    return ours === cores;
  } catch {
    return false;
  }
})();

let original: RunWithConfig | undefined;

/** runWithConfig as @langchain/core gave it (before it was replaced). */
export const originalRunWithConfig = (): RunWithConfig => original ?? AsyncLocalStorageProviderSingleton.runWithConfig;

/**
 * Replaces LangChain's runWithConfig with the lazy one while it is the known one; whether it is
 * replaced. Called before each run, as the callback manager's copy is (cheap once decided).
 */
export function useLazyRootRunTree(): boolean {
  const provider = AsyncLocalStorageProviderSingleton as Provider & { runWithConfig: RunWithConfig & { lazy?: true } };
  if (provider.runWithConfig.lazy) return true;
  if (original !== undefined || !sameLangsmith || !KNOWN_RUN_WITH_CONFIG.has(fingerprint(provider.runWithConfig))) {
    original ??= provider.runWithConfig;
    return false;
  }
  original = provider.runWithConfig;
  provider.runWithConfig = Object.assign(lazyRunWithConfig, { lazy: true as const });
  return true;
}
