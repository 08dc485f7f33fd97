// @ag-ui/a2a, a client nobody here wrote, against a real server (issue 85): AG-UI's thread id is
// a free string that the adapter sends as A2A's contextId, so one AG-UI thread must be one
// conversation of the caller's, turn after turn, with the agent's replies read back as AG-UI
// text messages. Driven as its users drive it: an A2AAgent over an A2AClient from a card URL,
// both the a2a-js client a user installs today (0.3) and the one @ag-ui/a2a depends on (0.2).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { A2AAgent } from '@ag-ui/a2a';
import { A2AClient } from '@a2a-js/sdk/client';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { fixtureGraphs } from './harness.ts';

let server: TestServer;
before(async () => {
  server = await startTestServer({ project: { graphs: fixtureGraphs } });
});
after(() => server.close());

/** The A2AClient class of the a2a-js version @ag-ui/a2a itself depends on (0.2.x, nested under it). */
function ownA2AClient(): new (baseUrl: string, cardPath: string) => unknown {
  const fromAgUi = createRequire(createRequire(import.meta.url).resolve('@ag-ui/a2a'));
  return (fromAgUi('@a2a-js/sdk/client') as { A2AClient: new (baseUrl: string, cardPath: string) => unknown }).A2AClient;
}

/** One user turn through the adapter: the texts of the assistant messages the turn added. */
async function turn(agent: A2AAgent, text: string): Promise<string[]> {
  agent.addMessage({ id: randomUUID(), role: 'user', content: text });
  const { newMessages } = await agent.runAgent();
  return newMessages.filter((m) => m.role === 'assistant').map((m) => String(m.content ?? ''));
}

const clients: [string, () => Promise<unknown>][] = [
  ['@a2a-js/sdk 0.3 (A2AClient.fromCardUrl)', () => A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json?assistant_id=echo`)],
  ["@a2a-js/sdk 0.2 (@ag-ui/a2a's own)", async () => new (ownA2AClient())(server.url, '.well-known/agent.json?assistant_id=echo')],
];

for (const [name, make] of clients) {
  test(`@ag-ui/a2a over ${name}: a free-string thread id is one conversation, turn after turn`, async () => {
    const threadId = `ag-ui thread ${randomUUID().slice(0, 8)}`;
    const agent = new A2AAgent({ a2aClient: (await make()) as never, threadId });
    assert.deepEqual(await turn(agent, 'one'), ['echo: one']);
    assert.deepEqual(await turn(agent, 'two'), ['echo: two']);
    // the server kept both turns on one thread of the caller's, named by that string
    const tasks = await fetch(`${server.url}/a2a/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ListTasks', params: { contextId: threadId } }),
    }).then((res) => res.json() as Promise<{ result: { tasks: { contextId: string; history: { parts: { text: string }[] }[] }[] } }>);
    assert.equal(tasks.result.tasks.length, 2, JSON.stringify(tasks));
    assert.ok(tasks.result.tasks.every((t) => t.contextId === threadId));
    const longest = tasks.result.tasks.map((t) => t.history.map((m) => m.parts[0]?.text)).sort((a, b) => b.length - a.length)[0];
    assert.deepEqual(longest, ['one', 'echo: one', 'two', 'echo: two']);
  });
}
