// The memory store as LangGraph's BaseStore: a LangGraph graph compiled with it reads and
// writes the scope's items. The class comes from @langchain/langgraph-checkpoint, which
// LangGraph re-exports: the two must stay one copy, or the store would be another
// LangGraph's class than the one the graph runs on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as checkpointPackage from '@langchain/langgraph-checkpoint';
import * as langGraph from '@langchain/langgraph';
import { openJournalStore } from '../../../src/adapters/embedded/journalStore.ts';
import { CollectionMemoryItems } from '../../../src/adapters/embedded/collectionMemoryItems.ts';
import { MemoryStore } from '../../../src/domain/memory/memoryStore.ts';
import { LangGraphMemoryStore } from '../../../src/domain/memory/langgraphStore.ts';

test("the checkpoint package's BaseStore, serialiser and copyCheckpoint are the ones LangGraph exports", () => {
  assert.equal(checkpointPackage.BaseStore, langGraph.BaseStore);
  assert.equal(checkpointPackage.MemorySaver, langGraph.MemorySaver);
  assert.equal(checkpointPackage.copyCheckpoint, langGraph.copyCheckpoint);
});

test("a LangGraph graph compiled with the memory store reads and writes its scope's items", async () => {
  const memory = new MemoryStore(new CollectionMemoryItems(await openJournalStore({ dataDir: null })), {}, null);
  await memory.put('tenant-a', ['notes'], 'seen', { text: 'before' });
  const store = new LangGraphMemoryStore(memory, 'tenant-a');
  assert.ok(store instanceof langGraph.BaseStore);
  const graph = new langGraph.StateGraph(langGraph.MessagesAnnotation)
    .addNode('remember', async () => {
      const found = await langGraph.getStore()!.get(['notes'], 'seen');
      await langGraph.getStore()!.put(['notes'], 'written', { text: `after ${String(found?.value.text)}` });
      return {};
    })
    .addEdge(langGraph.START, 'remember')
    .compile({ store });
  await graph.invoke({ messages: [] });
  assert.deepEqual((await memory.get('tenant-a', ['notes'], 'written'))?.value, { text: 'after before' });
  assert.equal(await memory.get('tenant-b', ['notes'], 'written'), null);
});
