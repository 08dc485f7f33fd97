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
