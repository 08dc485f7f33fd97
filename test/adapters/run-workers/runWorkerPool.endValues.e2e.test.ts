// A run's values at its end come from the run worker as their JSON text: the main thread makes
// the thread's values from it, frozen in place and measured in the same walk (domain/freeze.ts
// frozenFromJson), and the embedded store writes that text and takes that measure (issue 91).
// Whatever the values hold, a read of the thread, its state and its history after the runs gives
// the values the runs made, and the same after a restart on the data directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { inProcessApp, type InProcessApp } from '../../support/server.ts';
import { tempDir } from '../../support/tempDirs.ts';

interface Message {
  type: string;
  content: unknown;
}

/** What a thread's values read as: the thread's record, its state, its history's newest entry. */
async function reads(app: InProcessApp, threadId: string): Promise<{ thread: unknown; state: unknown; history: unknown }> {
  const thread = ((await (await app.api(`/threads/${threadId}`)).json()) as { values: unknown }).values;
  const state = ((await (await app.api(`/threads/${threadId}/state`)).json()) as { values: unknown }).values;
  const history = ((await (await app.api(`/threads/${threadId}/history`, { method: 'POST', json: { limit: 1 } })).json()) as { values: unknown }[])[0]!.values;
  return { thread, state, history };
}

test("a thread's values made at its runs' ends in run workers read back as the runs made them, also after a restart", { timeout: 120_000 }, async () => {
  const dataDir = tempDir();
  // escapes JSON writes, characters beyond Latin-1, and a text long enough to be written as the worker's text
  const inputs = ['plain', 'quote " backslash \\ tab \t', 'é € 😀 \u2028', `long ${'x'.repeat(1500)}`, '{"not": ["json"]}'];
  let app = await inProcessApp({ dataDir, runWorkers: 'default' });
  try {
    const threadId = ((await (await app.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string }).thread_id;
    for (const content of inputs) {
      const answer = await app.api(`/threads/${threadId}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content }] } },
      });
      assert.equal(answer.status, 200, await answer.text());
    }
    const before = await reads(app, threadId);
    const messages = (before.thread as { messages: Message[] }).messages;
    assert.deepEqual(
      messages.filter((m) => m.type === 'human').map((m) => m.content),
      inputs,
      'every input once, as sent',
    );
    assert.equal(messages.length, inputs.length * 2, 'an answer to each');
    assert.deepEqual(before.state, before.thread, "the state's values are the thread's");
    assert.deepEqual(before.history, before.thread, "the history's newest values are the thread's");
    await app.close();
    app = await inProcessApp({ dataDir, runWorkers: 'default' });
    assert.deepEqual(await reads(app, threadId), before, 'read back the same after a restart');
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

// A protocol run (`run.start`) streams no `values` of its own: its end state comes from the
// worker as the JSON text the worker writes of it (RunStream.wireValues), a LangGraph graph's
// and a plain function's alike, and the main thread parses it once (issue 87: it was posted as
// data, cloned object by object, then copied and serialised again by the main thread).
test("a protocol run's end state made in a run worker reads back as the run made it, also after a restart", { timeout: 120_000 }, async () => {
  const dataDir = tempDir();
  const project = { graphs: { echo: './examples/graphs/echo.ts:echo', agent: './examples/graphs/agent.ts:agent' } };
  const inputs = ['what is 6 * 7?', 'quote " backslash \\ é € 😀 \u2028', `long ${'y'.repeat(1500)}`];
  let app = await inProcessApp({ dataDir, runWorkers: 'default', project });
  try {
    const threads: Record<string, string> = {};
    for (const graph of ['echo', 'agent']) {
      const threadId = ((await (await app.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string }).thread_id;
      threads[graph] = threadId;
      for (const content of inputs) {
        const started = await app.api(`/threads/${threadId}/commands`, {
          method: 'POST',
          json: { id: 1, method: 'run.start', params: { assistant_id: graph, input: { messages: [{ role: 'user', content }] } } },
        });
        assert.equal(started.status, 200, await started.clone().text());
        assert.equal(((await started.json()) as { type: string }).type, 'success');
        const runs = (await (await app.api(`/threads/${threadId}/runs`)).json()) as { run_id: string }[];
        // the run's join answers with its end state
        const joined = await app.api(`/threads/${threadId}/runs/${runs[0]!.run_id}/join`);
        assert.equal(joined.status, 200, await joined.clone().text());
        const values = (await joined.json()) as { messages: Message[] };
        assert.equal(values.messages.filter((m) => m.type === 'human').at(-1)?.content, content, `${graph}: the join's values end with the input`);
      }
      const before = await reads(app, threadId);
      const messages = (before.thread as { messages: Message[] }).messages;
      assert.deepEqual(
        messages.filter((m) => m.type === 'human').map((m) => m.content),
        inputs,
        `${graph}: every input once, as sent`,
      );
      assert.deepEqual(before.state, before.thread, `${graph}: the state's values are the thread's`);
      assert.deepEqual(before.history, before.thread, `${graph}: the history's newest values are the thread's`);
    }
    const before = { echo: await reads(app, threads.echo!), agent: await reads(app, threads.agent!) };
    await app.close();
    app = await inProcessApp({ dataDir, runWorkers: 'default', project });
    assert.deepEqual({ echo: await reads(app, threads.echo!), agent: await reads(app, threads.agent!) }, before, 'read back the same after a restart');
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
