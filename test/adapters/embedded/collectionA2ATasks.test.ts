// The A2A tasks and their push configs in a collection of the store, on both stores (on
// PostgreSQL the collections are its tables): what A2ATasksRepository and PushConfigsRepository
// promise the task service.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Message } from '../../../generated/a2a/types.gen.ts';
import { CollectionA2ATasks } from '../../../src/adapters/embedded/collectionA2ATasks.ts';
import { CollectionPushConfigs } from '../../../src/adapters/embedded/collectionPushConfigs.ts';
import type { TaskOutcome } from '../../../src/domain/ports/a2aTasksRepository.ts';
import { BACKENDS, openStore } from '../../support/bothStores.ts';

const message = (text: string) => ({ kind: 'message', messageId: text, role: 'user', parts: [{ kind: 'text', text }] }) as unknown as Message;
const outcome = (runId: string): TaskOutcome => ({ runId, state: 'completed', reply: 'done', values: null, error: null, at: '2026-01-01T00:00:00.000Z' });
const newTask = (id: string, contextId = 'ctx-1') => ({
  id,
  owner: 'tenant-a',
  contextId,
  assistantId: 'assistant-1',
  runId: `${id}-run-1`,
  message: message(`${id} hi`),
});

for (const backend of BACKENDS) {
  const open = async () => {
    const store = await openStore(backend);
    return { tasks: new CollectionA2ATasks(store), configs: new CollectionPushConfigs(store) };
  };

  describe(`A2A tasks on the ${backend} store`, () => {
    it('creates a task once: a second create of its id is refused and the first kept', async () => {
      const { tasks } = await open();
      const created = await tasks.create(newTask('t1'));
      assert.deepEqual([created.runIds, created.owner, created.messages?.length, created.outcome], [['t1-run-1'], 'tenant-a', 1, null]);
      await assert.rejects(tasks.create({ ...newTask('t1'), runId: 'other' }));
      assert.deepEqual((await tasks.get('t1'))?.runIds, ['t1-run-1']);
    });

    it('lists every task or those of one context', async () => {
      const { tasks } = await open();
      await tasks.create(newTask('t1', 'ctx-1'));
      await tasks.create(newTask('t2', 'ctx-2'));
      await tasks.create(newTask('t3', 'ctx-1'));
      assert.deepEqual((await tasks.list('ctx-1')).map((t) => t.id).sort(), ['t1', 't3']);
      assert.deepEqual((await tasks.list()).map((t) => t.id).sort(), ['t1', 't2', 't3']);
    });

    it('appends runs with their messages and marks the canceled run; a missing task changes nothing', async () => {
      const { tasks } = await open();
      await tasks.create(newTask('t1'));
      const after = await tasks.addRun('t1', 't1-run-2', message('again'));
      assert.deepEqual([after?.runIds, after?.messages?.length], [['t1-run-1', 't1-run-2'], 2]);
      assert.equal((await tasks.markCanceled('t1', 't1-run-2'))?.canceledRunId, 't1-run-2');
      assert.equal(await tasks.addRun('missing', 'r', message('x')), undefined);
      assert.equal(await tasks.get('missing'), undefined);
    });

    it("keeps the current run's outcome once; a stale run's outcome is ignored", async () => {
      const { tasks } = await open();
      await tasks.create(newTask('t1'));
      await tasks.addRun('t1', 't1-run-2', message('again'));
      await tasks.saveOutcome('t1', outcome('t1-run-1'));
      assert.equal((await tasks.get('t1'))?.outcome, null);
      await tasks.saveOutcome('t1', outcome('t1-run-2'));
      assert.equal((await tasks.get('t1'))?.outcome?.runId, 't1-run-2');
      await tasks.saveOutcome('t1', { ...outcome('t1-run-2'), reply: 'later' });
      assert.equal((await tasks.get('t1'))?.outcome?.reply, 'done');
    });

    it("keeps push configs per task: the same id of another task is another config, a put replaces the task's own", async () => {
      const { configs } = await open();
      const config = (taskId: string, id: string, url: string) => ({ id, taskId, url, createdAt: '2026-01-01T00:00:00.000Z' });
      await configs.put(config('t1', 'c1', 'https://a.example/hook'));
      await configs.put(config('t2', 'c1', 'https://b.example/hook'));
      await configs.put(config('t1', 'c1', 'https://c.example/hook'));
      assert.equal((await configs.get('t1', 'c1'))?.url, 'https://c.example/hook');
      assert.equal((await configs.get('t2', 'c1'))?.url, 'https://b.example/hook');
      assert.deepEqual(
        (await configs.list('t1')).map((c) => c.url),
        ['https://c.example/hook'],
      );
      assert.equal(await configs.delete('t1', 'c1'), true);
      assert.equal(await configs.delete('t1', 'c1'), false);
      assert.deepEqual(await configs.list('t1'), []);
    });
  });
}
