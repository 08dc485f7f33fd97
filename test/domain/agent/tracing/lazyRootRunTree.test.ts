// The lazily made root run tree (src/domain/agent/tracing/lazyRootRunTree.ts) against the eager
// one @langchain/core makes: what reads a tree sees the same fields, and a LangGraph run's code
// (its config, LangChain's context variables, a langsmith traceable) works as before, while a
// run whose code reads no tree makes none.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AsyncLocalStorage } from 'node:async_hooks';
import { inspect } from 'node:util';
import { RunTree } from 'langsmith';
import { getCurrentRunTree, traceable } from 'langsmith/traceable';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { getContextVariable, setContextVariable } from '@langchain/core/context';
import { RunnableLambda } from '@langchain/core/runnables';
import { Annotation, StateGraph, getConfig } from '@langchain/langgraph';
import { lazyRootRunTree, originalRunWithConfig, useLazyRootRunTree } from '../../../../src/domain/agent/tracing/lazyRootRunTree.ts';

type Fields = Record<string, unknown>;

/** How many RunTrees are constructed while `run` goes (each constructor asks for its defaults once). */
async function treesMade(run: () => Promise<unknown>): Promise<number> {
  // a static of RunTree's every constructor calls (private in its types)
  const trees = RunTree as unknown as { getDefaultConfig: () => object };
  const defaults = trees.getDefaultConfig;
  let made = 0;
  trees.getDefaultConfig = function (this: unknown) {
    made += 1;
    return defaults.call(this);
  };
  try {
    await run();
  } finally {
    trees.getDefaultConfig = defaults;
  }
  return made;
}

describe('a lazily made root run tree', () => {
  it('has, once read, the fields an eager root tree has, its start time the time it was asked for', () => {
    const before = Date.now();
    const lazy = lazyRootRunTree() as unknown as Fields;
    const eager = new RunTree({ name: '<runnable_lambda>', tracingEnabled: false }) as unknown as Fields;
    assert.deepEqual(Object.keys(lazy).sort(), Object.keys(eager).sort());
    assert.ok(lazy instanceof RunTree);
    for (const key of [
      'name',
      'run_type',
      'project_name',
      'tracingEnabled',
      'child_runs',
      'extra',
      'execution_order',
      'child_execution_order',
      'api_url',
      'replicas',
    ])
      assert.deepEqual(lazy[key], eager[key], key);
    assert.ok((lazy.start_time as number) >= before && (lazy.start_time as number) <= Date.now());
    assert.match(lazy.id as string, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    assert.equal(lazy.trace_id, lazy.id);
    assert.match(lazy.dotted_order as string, new RegExp(`^\\d{8}T\\d{6}\\d+Z${lazy.id as string}$`));
    assert.equal(lazy.client, eager.client, 'the shared client');
  });

  it('is not made while only its config, name or tracing flag is read or written', async () => {
    const made = await treesMade(async () => {
      const tree = lazyRootRunTree() as unknown as Fields;
      tree.extra = { ...(tree.extra as object), marked: true };
      assert.equal(tree.name, '<runnable_lambda>');
      assert.equal(tree.tracingEnabled, false);
      assert.equal(typeof tree.createChild, 'function');
      assert.deepEqual(tree.metadata, {});
    });
    assert.equal(made, 0);
  });

  it('is made by any other field, a spread, JSON, a copy or a child, keeping what was set before', async () => {
    const reads: [string, (tree: Fields) => unknown][] = [
      ['a field', (tree) => tree.id],
      ['a write', (tree) => (tree.end_time = 5)],
      ['`in`', (tree) => 'dotted_order' in tree],
      ['a spread', (tree) => ({ ...tree }).trace_id],
      ['JSON', (tree) => JSON.parse(JSON.stringify(tree)).id],
      ['a copy', (tree) => (new RunTree(tree as never) as unknown as Fields).id],
      ['a child', (tree) => (tree as unknown as RunTree).createChild({ name: 'child' }).trace_id],
    ];
    for (const [what, read] of reads) {
      const tree = lazyRootRunTree() as unknown as Fields;
      tree.extra = { metadata: {}, kept: 1 };
      let result: unknown;
      const made = await treesMade(async () => (result = read(tree)));
      assert.ok(made >= 1, what);
      assert.ok(result !== undefined, what);
      assert.match(tree.id as string, /^[0-9a-f-]{36}$/, what);
      assert.equal((tree.extra as Fields).kept, 1, what);
    }
  });

  it('shows in util.inspect as an eager tree does', () => {
    const shown = inspect(lazyRootRunTree());
    assert.match(shown, /^RunTree \{/);
    assert.match(shown, /dotted_order: '\d{8}T/);
  });
});

describe("LangChain's runWithConfig, its root tree made lazily", () => {
  let replaced: boolean;
  before(() => {
    AsyncLocalStorageProviderSingleton.initializeGlobalInstance(new AsyncLocalStorage());
    replaced = useLazyRootRunTree();
  });
  after(() => {
    // the other tests of this process get LangChain's own
    (AsyncLocalStorageProviderSingleton as { runWithConfig: unknown }).runWithConfig = originalRunWithConfig();
  });

  const State = Annotation.Root({ seen: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }) });

  it('is the one installed for the @langchain/core agentplane ships (its source is the known one)', () => {
    assert.equal(replaced, true);
    assert.equal(useLazyRootRunTree(), true, 'once replaced, it stays');
  });

  it('makes no run tree in a run whose code reads none', async () => {
    const graph = new StateGraph(State)
      .addNode('a', () => ({ seen: ['a'] }))
      .addEdge('__start__', 'a')
      .compile();
    await graph.invoke({}); // its modules warmed
    const made = await treesMade(() => graph.invoke({}));
    assert.equal(made, 0);
  });

  it("gives a node its config, LangChain's context variables and what a traceable sees as the eager tree did", async () => {
    const traced = traceable(
      async () => {
        const tree = getCurrentRunTree(true) as unknown as Fields | undefined;
        return `traceable:${String(tree?.name)}:${typeof tree?.id}:${String(tree?.tracingEnabled)}:${Object.keys(tree ?? {}).length}`;
      },
      { name: 'inner' },
    );
    const graph = new StateGraph(State)
      .addNode('set', async () => {
        setContextVariable('colour', 'blue');
        const inner = await RunnableLambda.from(() => getContextVariable('colour')).invoke(null);
        const tree = getCurrentRunTree(true) as unknown as Fields;
        return {
          seen: [`ctx:${String(inner)}`, `config:${String(getConfig().configurable?.thread_id)}`, `node:${String(tree.name)}:${Object.keys(tree).length}`],
        };
      })
      .addNode('trace', async () => ({ seen: [await traced()] }))
      .addEdge('__start__', 'set')
      .addEdge('set', 'trace')
      .compile();
    const lazy = await graph.invoke({}, { configurable: { thread_id: 't-1' } });
    const provider = AsyncLocalStorageProviderSingleton as { runWithConfig: unknown };
    const replacement = provider.runWithConfig;
    provider.runWithConfig = originalRunWithConfig();
    try {
      const eager = await graph.invoke({}, { configurable: { thread_id: 't-1' } });
      assert.deepEqual(lazy.seen, eager.seen);
      assert.deepEqual(eager.seen.slice(0, 2), ['ctx:blue', 'config:t-1']);
    } finally {
      provider.runWithConfig = replacement;
    }
  });
});
