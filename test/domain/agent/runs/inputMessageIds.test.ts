// A plain-function run's input messages keep the ids chosen when the run was stored, whichever attempt
// executes it: a run retried after a takeover (its first attempt's writes never recorded)
// writes and streams the messages under the ids its first attempt used.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Assistant } from '../../../../generated/agent-server/types.gen.ts';
import { openJournalStore } from '../../../../src/adapters/embedded/journalStore.ts';
import { InProcessRunClaims } from '../../../../src/adapters/run-storage/inProcessRunClaims.ts';
import { CollectionRunStore } from '../../../../src/adapters/run-storage/collectionRunStore.ts';
import { CollectionThreads } from '../../../../src/adapters/embedded/collectionThreads.ts';
import { CollectionCheckpoints } from '../../../../src/adapters/embedded/collectionCheckpoints.ts';
import { CollectionPlainCheckpoints } from '../../../../src/adapters/embedded/collectionPlainCheckpoints.ts';
import { InMemoryRunEventLog } from '../../../../src/adapters/run-storage/inMemoryRunEventLog.ts';
import { StoreCheckpointer } from '../../../../src/domain/agent/checkpoints/checkpointer.ts';
import { PlainStateStore } from '../../../../src/domain/agent/checkpoints/plainState.ts';
import { runPlainGraph, type RunContext } from '../../../../src/domain/agent/graphs/graphRunners.ts';
import { assignInputMessageIds } from '../../../../src/domain/agent/runs/inputMessageIds.ts';
import { toApiRun, type RunRecord, type ThreadRecord } from '../../../../src/domain/agent/records.ts';
import { enqueueRun } from '../../../../src/domain/agent/runs/runWrites.ts';
import type { MessageDict } from '../../../../src/domain/agent/messages/messages.ts';

const assistant = { assistant_id: 'a1', graph_id: 'echo', config: {}, context: {}, metadata: {} } as unknown as Assistant;

async function storedRun(input: Record<string, unknown>): Promise<{ run: RunRecord; plain: PlainStateStore; checkpointer: StoreCheckpointer }> {
  const store = await openJournalStore({ dataDir: null });
  const runs = store.collection<RunRecord>('runs', { indexes: ['thread_id', 'status'] });
  store.collection<ThreadRecord>('threads', { indexes: ['status'] });
  const eventLog = new InMemoryRunEventLog();
  const claims = new InProcessRunClaims(runs, store, eventLog);
  const deps = {
    runs: new CollectionRunStore(store),
    threads: new CollectionThreads(store),
    eventLog,
    claims,
    engine: { enqueued() {}, cancel: async () => assert.fail('no cancel') },
  };
  const enqueued = await enqueueRun(deps as never, 't1', assistant, { assistant_id: 'a1', input }, { owner: '' });
  // the run as a replica that claims it reads it from the store
  const run = (await runs.get(enqueued.run_id))!;
  return { run, plain: new PlainStateStore(new CollectionPlainCheckpoints(store)), checkpointer: new StoreCheckpointer(new CollectionCheckpoints(store)) };
}

/** One attempt of the run on an echo graph, its writes left unrecorded (its replica died); the message ids it wrote. */
async function attempt(stored: Awaited<ReturnType<typeof storedRun>>, number: number): Promise<{ written: string[]; streamed: string[] }> {
  const streamed: string[] = [];
  const ctx: RunContext = {
    run: { ...stored.run, attempt: number },
    graph: {
      id: 'echo',
      kind: 'plain',
      fn: (state: Record<string, unknown>) => ({ messages: [{ role: 'ai', content: `${(state.messages as unknown[]).length}` }] }),
    },
    signal: new AbortController().signal,
    publish: (event, data) => {
      if (event === 'values') streamed.push(...((data as { messages: MessageDict[] }).messages ?? []).map((m) => m.id!));
    },
    plain: stored.plain,
    checkpointer: stored.checkpointer,
    resumeFromCheckpoint: false,
    hostMetadata: {},
  } as RunContext;
  const output = await runPlainGraph(ctx);
  return { written: (output.values.messages as MessageDict[]).slice(0, 2).map((m) => m.id!), streamed: [...new Set(streamed)].slice(0, 2) };
}

describe('input message ids', () => {
  it('a run retried after a takeover writes and streams its input messages under the ids of its first attempt', async () => {
    const stored = await storedRun({ messages: [{ role: 'user', content: 'hi' }, 'plain text'] });
    const first = await attempt(stored, 1);
    const second = await attempt(stored, 2);
    assert.equal(new Set(first.written).size, 2);
    assert.deepEqual(second.written, first.written);
    assert.deepEqual(second.streamed, first.streamed);
  });

  it('chosen once when the run is stored, kept off the API run, a message’s own id kept', async () => {
    assert.equal(assignInputMessageIds({ other: 1 }), undefined);
    assert.equal(assignInputMessageIds(null), undefined);
    const stored = await storedRun({
      messages: [
        { role: 'user', content: 'a', id: 'mine' },
        { role: 'user', content: 'b' },
      ],
    });
    const ids = stored.run.input_message_ids!;
    assert.equal(ids[0], 'mine');
    assert.match(ids[1], /^[0-9a-f-]{36}$/);
    assert.equal('input_message_ids' in toApiRun(stored.run), false);
    // the input itself is kept as the client sent it
    assert.deepEqual(stored.run.kwargs.input, {
      messages: [
        { role: 'user', content: 'a', id: 'mine' },
        { role: 'user', content: 'b' },
      ],
    });
  });
});
