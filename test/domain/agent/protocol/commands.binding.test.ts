// run.start checks which assistant the thread is bound to (the one its first protocol run
// named, as upstream binds it) at every run. It listed every run of the thread for that, each
// record read whole: a cost that grew with the thread's history on the main thread, at every
// run (issue 87: the fan-out phase's threads carry hundreds of runs). Here the run records a
// run.start reads are counted on a thread with a long history, and the binding is checked to
// hold as before: the first protocol run's assistant, not a plain run's before it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { JournalCollection } from '../../../../src/adapters/embedded/journalCollection.ts';

const echo = path.join(ROOT, 'examples/graphs/echo.ts');
const HISTORY = 30;

/** The result of `work`, and how many whole records of the runs collection were read while it ran. */
async function runRecordsRead<T>(work: () => Promise<T>): Promise<{ result: T; read: number }> {
  const proto = JournalCollection.prototype;
  const { get, getMany, list } = proto;
  let read = 0;
  const counted = (c: JournalCollection<object>, n: number) => {
    if (c.name === 'runs') read += n;
  };
  proto.get = async function (this: JournalCollection<object>, id) {
    const found = await get.call(this, id);
    counted(this, found ? 1 : 0);
    return found;
  };
  proto.getMany = async function (this: JournalCollection<object>, ids) {
    const found = await getMany.call(this, ids);
    counted(this, found.filter(Boolean).length);
    return found;
  };
  proto.list = async function (this: JournalCollection<object>, options = {}) {
    const found = await list.call(this, options);
    // a listing of fields memory keeps (ids, owners) reads no record
    if (!options.fields) counted(this, found.length);
    return found;
  };
  try {
    return { result: await work(), read };
  } finally {
    Object.assign(proto, { get, getMany, list });
  }
}

describe('run.start finds the assistant a thread is bound to', () => {
  let app: InProcessApp;
  before(async () => {
    app = await areaApp('agent-server', { project: { graphs: { echo: `${echo}:echo`, other: `${echo}:echo` } }, dataDir: null, runWorkers: '0' });
  });
  after(() => app.close());

  const command = async (threadId: string, assistant: string, id: number) => {
    const res = await app.api(`/threads/${threadId}/commands`, {
      method: 'POST',
      json: { id, method: 'run.start', params: { assistant_id: assistant, input: { messages: [{ role: 'user', content: `run ${id}` }] } } },
    });
    assert.equal(res.status, 200);
    return (await res.json()) as { type: string; result?: { run_id: string }; message?: string };
  };
  const join = (threadId: string, runId: string) => app.api(`/threads/${threadId}/runs/${runId}/join`).then((res) => res.arrayBuffer());

  it(`reads a run record or two, not the thread's ${HISTORY} runs, and still refuses another assistant`, async () => {
    const threadId = randomUUID();
    for (let i = 0; i < HISTORY; i += 1) {
      const started = await command(threadId, 'echo', i);
      assert.equal(started.type, 'success');
      await join(threadId, started.result!.run_id);
    }
    const next = await runRecordsRead(() => command(threadId, 'echo', HISTORY));
    assert.equal(next.result.type, 'success');
    assert.ok(next.read <= 3, `run.start read ${next.read} run records on a thread of ${HISTORY} runs`);
    await join(threadId, next.result.result!.run_id);
    const refused = await command(threadId, 'other', HISTORY + 1);
    assert.equal(refused.type, 'error');
    assert.equal(refused.message, `Thread ${threadId} is bound to assistant echo; cannot run other.`);
  });

  it("binds to the first protocol run's assistant, not to a plain run's before it", async () => {
    const threadId = randomUUID();
    const plain = await app.api(`/threads/${threadId}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'other', input: { messages: [] }, if_not_exists: 'create' },
    });
    assert.equal(plain.status, 200);
    await plain.arrayBuffer();
    const first = await command(threadId, 'echo', 1);
    assert.equal(first.type, 'success');
    await join(threadId, first.result!.run_id);
    assert.equal((await command(threadId, 'other', 2)).type, 'error');
    assert.equal((await command(threadId, 'echo', 3)).type, 'success');
  });
});
