// The protocol's run.start and input.respond on a thread that waits for input: they resume its
// interrupts while it has some, and start afresh once a resumed run has answered them, asking
// the thread's stored record rather than its state. Reading the state revives every message of
// the thread (issue 67: ~2 s of the main thread under the bench's fan-out, on every run.start),
// so here the state reads are counted. In process, runs executed on the request loop; the wire
// is test/handlers/agent-server/protocol.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, type InProcessApp } from '../../../support/server.ts';
import { areaApp } from '../../../support/area.ts';
import { stateReads } from '../../../support/stateReads.ts';
import { events } from '../../../support/protocolEvents.ts';

const fixture = path.join(ROOT, 'test/fixtures/graphs/protocol.ts');
// the same question asked while a node beside the asking one still works (1.5 s)
const besideSlow = path.join(ROOT, 'test/fixtures/differential-project/src/approval.ts');
// a run that lasts 400 ms and asks nothing
const waitsFixture = path.join(ROOT, 'test/fixtures/graphs/streamWhileBusy.ts');
const MESSAGES = 200;

describe('protocol commands on a thread waiting for input', () => {
  let app: InProcessApp;
  before(async () => {
    app = await areaApp('agent-server', {
      project: {
        graphs: { ask: `${fixture}:ask`, askBeside: `${besideSlow}:besideSlow`, waits: `${waitsFixture}:waitThenAnswer`, chatty: `${fixture}:chatty` },
      },
      dataDir: null,
      runWorkers: '0',
    });
  });
  after(() => app.close());

  const command = async (threadId: string, body: object) => {
    const res = await app.api(`/threads/${threadId}/commands`, { method: 'POST', json: body });
    assert.equal(res.status, 200);
    return (await res.json()) as any;
  };
  const run = async (threadId: string, runId: string) => {
    await app.api(`/threads/${threadId}/runs/${runId}/join`);
    return (await (await app.api(`/threads/${threadId}/runs/${runId}`)).json()) as any;
  };
  const thread = async (threadId: string) => (await (await app.api(`/threads/${threadId}`)).json()) as any;
  /** The thread's question answered with `decision`: idle, nothing left to answer. */
  const answeredWith = async (threadId: string, decision: string) => {
    const answered = await thread(threadId);
    assert.equal(answered.status, 'idle');
    assert.equal(answered.values.decision, decision);
    assert.deepEqual(answered.interrupts, {});
  };

  /** A thread of MESSAGES messages whose run stopped at the graph's interrupt. */
  async function interrupted(): Promise<string> {
    const threadId = randomUUID();
    const messages = Array.from({ length: MESSAGES }, (_, i) => ({ type: 'human', content: `message ${i}` }));
    const started = await command(threadId, { id: 1, method: 'run.start', params: { assistant_id: 'ask', input: { messages } } });
    assert.equal((await run(threadId, started.result.run_id)).status, 'success');
    const waiting = await thread(threadId);
    assert.equal(waiting.status, 'interrupted');
    assert.equal(waiting.values.messages.length, MESSAGES);
    return threadId;
  }

  it("run.start resumes the thread's interrupts, then starts afresh once they are answered, without reading its state", async () => {
    const threadId = await interrupted();
    const resume = await stateReads(() => command(threadId, { id: 2, method: 'run.start', params: { assistant_id: 'ask', input: 'yes' } }));
    assert.equal(resume.result.type, 'success');
    assert.equal(resume.reads, 0, `the state was read ${resume.reads} times to start a run`);
    const resumed = await run(threadId, resume.result.result.run_id);
    assert.deepEqual(resumed.kwargs.command, { resume: 'yes' });
    assert.equal(resumed.kwargs.input ?? null, null);
    const answered = await thread(threadId);
    assert.equal(answered.status, 'idle');
    assert.deepEqual(answered.interrupts, {});
    assert.equal(answered.values.decision, 'yes');
    // the interrupt a run resumed does not make the next run.start a resume
    const fresh = await stateReads(() => command(threadId, { id: 3, method: 'run.start', params: { assistant_id: 'ask', input: { messages: [] } } }));
    assert.equal(fresh.reads, 0, `the state was read ${fresh.reads} times to start a run`);
    const next = await run(threadId, fresh.result.result.run_id);
    assert.deepEqual(next.kwargs.input, { messages: [] });
    assert.equal(next.kwargs.command ?? null, null);
    assert.equal((await thread(threadId)).status, 'interrupted');
  });

  it('input.respond resumes while the thread waits, and is refused once a run answered it, without reading its state', async () => {
    const threadId = await interrupted();
    const interruptId = (Object.values((await thread(threadId)).interrupts) as { id: string }[][])[0][0].id;
    const respond = (id: number) => command(threadId, { id, method: 'input.respond', params: { interrupt_id: interruptId, response: 'no' } });
    const accepted = await stateReads(() => respond(2));
    assert.deepEqual(accepted.result, { type: 'success', id: 2, result: {}, meta: accepted.result.meta });
    assert.equal(accepted.reads, 0, `the state was read ${accepted.reads} times to answer input.respond`);
    // the run it queued answers the interrupt (its id is not in the reply: the thread's latest run)
    const runs = (await (await app.api(`/threads/${threadId}/runs`)).json()) as { run_id: string }[];
    const resumed = await run(threadId, runs[0].run_id);
    assert.deepEqual(resumed.kwargs.command, { resume: { [interruptId]: 'no' } });
    assert.equal((await thread(threadId)).values.decision, 'no');
    const refused = await stateReads(() => respond(3));
    assert.deepEqual(refused.result, {
      type: 'error',
      id: 3,
      error: 'invalid_argument',
      message: 'input.respond can only be used while the run is interrupted.',
    });
    assert.equal(refused.reads, 0);
  });

  it('input.respond answers the question a run still running has asked (a node beside the asking one still works): the resume is queued behind it', async () => {
    const threadId = randomUUID();
    const started = await command(threadId, { id: 1, method: 'run.start', params: { assistant_id: 'askBeside', input: { messages: [] } } });
    const runId = started.result.run_id;
    // the client answers the question as soon as it is asked, as a page's button does
    const stream = await app.api(`/threads/${threadId}/stream/events`, { method: 'POST', json: { channels: ['input'] } });
    const [asked] = await events(stream, (event) => event.method === 'input.requested');
    const reply = await command(threadId, { id: 2, method: 'input.respond', params: { interrupt_id: asked.params.data.interrupt_id, response: 'yes' } });
    const asking = (await (await app.api(`/threads/${threadId}/runs/${runId}`)).json()) as { status: string };
    assert.equal(asking.status, 'running', 'the asking run ended before its question was answered: the test proves nothing');
    assert.equal(reply.type, 'success', JSON.stringify(reply));
    // the resume runs once the asking run has ended, and answers its question
    const runs = (await (await app.api(`/threads/${threadId}/runs`)).json()) as { run_id: string }[];
    assert.equal(runs.length, 2);
    const resumed = await run(threadId, runs[0].run_id);
    assert.notEqual(resumed.run_id, runId);
    assert.equal(resumed.status, 'success');
    await answeredWith(threadId, 'yes');
  });

  it('run.start with input while the run still running has asked resumes its question, queued behind it, as upstream does', async () => {
    const threadId = randomUUID();
    const started = await command(threadId, { id: 1, method: 'run.start', params: { assistant_id: 'askBeside', input: { messages: [] } } });
    const runId = started.result.run_id;
    const stream = await app.api(`/threads/${threadId}/stream/events`, { method: 'POST', json: { channels: ['input'] } });
    await events(stream, (event) => event.method === 'input.requested');
    const reply = await command(threadId, { id: 2, method: 'run.start', params: { assistant_id: 'askBeside', input: 'yes' } });
    const asking = (await (await app.api(`/threads/${threadId}/runs/${runId}`)).json()) as { status: string };
    assert.equal(asking.status, 'running', 'the asking run ended before run.start came: the test proves nothing');
    assert.equal(reply.type, 'success', JSON.stringify(reply));
    const resumed = await run(threadId, reply.result.run_id);
    assert.deepEqual(resumed.kwargs.command, { resume: 'yes' });
    assert.equal(resumed.kwargs.input ?? null, null);
    assert.equal(resumed.status, 'success');
    await answeredWith(threadId, 'yes');
  });

  it('run.start with input on a busy thread whose run asks nothing starts afresh', async () => {
    const threadId = randomUUID();
    const input = { messages: [{ type: 'human', content: 'hi' }] };
    const first = await command(threadId, { id: 1, method: 'run.start', params: { assistant_id: 'waits', input } });
    const second = await command(threadId, { id: 2, method: 'run.start', params: { assistant_id: 'waits', input } });
    assert.equal(second.type, 'success', JSON.stringify(second));
    const running = (await (await app.api(`/threads/${threadId}/runs/${first.result.run_id}`)).json()) as { status: string };
    assert.equal(running.status, 'running', 'the first run ended before the second run.start came: the test proves nothing');
    const queued = await run(threadId, second.result.run_id);
    assert.deepEqual(queued.kwargs.input, input);
    assert.equal(queued.kwargs.command ?? null, null);
    assert.equal(queued.status, 'success');
  });

  it('run.start with input on a thread whose run streams without a rest is answered at once, not once the run rests', async () => {
    const threadId = randomUUID();
    const first = await command(threadId, { id: 1, method: 'run.start', params: { assistant_id: 'chatty', input: { messages: [] } } });
    const stream = await app.api(`/threads/${threadId}/stream/events`, { method: 'POST', json: { channels: ['custom'] } });
    await events(stream, (event) => event.method === 'custom');
    const started = performance.now();
    const rejected = await app.api(`/threads/${threadId}/commands`, {
      method: 'POST',
      json: { id: 2, method: 'run.start', params: { assistant_id: 'chatty', input: { messages: [] }, multitaskStrategy: 'reject' } },
    });
    const took = performance.now() - started;
    assert.equal(rejected.status, 409, `answered ${rejected.status} after ${took.toFixed(0)} ms`);
    const running = (await (await app.api(`/threads/${threadId}/runs/${first.result.run_id}`)).json()) as { status: string };
    assert.equal(running.status, 'running', `the command waited ${took.toFixed(0)} ms, until the run had ended`);
    assert.equal((await run(threadId, first.result.run_id)).status, 'success');
  });
});
