// The shipped `approval` example speaks today's human-in-the-loop shape (LangChain's HITL
// middleware, read by agent-chat-ui's inbox): it asks with action_requests / review_configs
// and is resumed with `{ decisions: [...] }`, one of approve / edit / reject, through the wire
// as a client resumes it (command.resume on a run of the thread). Its run settings are a
// context schema with a field of each kind, so the dashboard draws a form for them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

describe('the shipped approval example', () => {
  let server: InProcessApp;
  let client: Client;
  before(async () => {
    server = await areaApp('agent-server', {
      project: { graphs: { approval: `${path.join(ROOT, 'examples/graphs/approval.ts')}:approval` } },
      dataDir: null,
    });
    client = new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
  });
  after(() => server.close());

  /** A thread stopped on the example's request, and that request as a client reads it. */
  async function asked(text: string) {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, 'approval', { input: { messages: [{ role: 'user', content: text }] } });
    const state = await client.threads.getState(thread.thread_id);
    const [pending] = state.tasks.flatMap((t) => t.interrupts ?? []);
    return { threadId: thread.thread_id, value: pending?.value as any };
  }

  async function resumed(threadId: string, resume: unknown): Promise<string> {
    const values = (await client.runs.wait(threadId, 'approval', { command: { resume } })) as { messages: { content: string }[] };
    assert.deepEqual((await client.threads.getState(threadId)).next, [], 'the run finished');
    return values.messages.at(-1)!.content;
  }

  it('asks with action_requests and review_configs, as the HITL middleware does', async () => {
    const { value } = await asked('email bob about lunch');
    assert.deepEqual(value, {
      action_requests: [
        {
          name: 'send_email',
          args: { to: 'bob@example.com', subject: 'lunch', body: 'Hello,\n\nAbout lunch: email bob about lunch\n' },
          description: 'Send this email to bob@example.com?',
        },
      ],
      review_configs: [{ action_name: 'send_email', allowed_decisions: ['approve', 'edit', 'reject'] }],
    });
  });

  it('approve sends the draft as it was', async () => {
    const { threadId } = await asked('email bob about lunch');
    assert.equal(await resumed(threadId, { decisions: [{ type: 'approve' }] }), 'Sent to bob@example.com: "lunch".');
  });

  it("edit sends the edited action's arguments", async () => {
    const { threadId, value } = await asked('email bob about lunch');
    const [request] = value.action_requests;
    const edited = { name: request.name, args: { ...request.args, subject: 'lunch on friday' } };
    assert.equal(await resumed(threadId, { decisions: [{ type: 'edit', edited_action: edited }] }), 'Sent to bob@example.com: "lunch on friday".');
  });

  it("reject drops the draft and keeps the reviewer's message, which is optional", async () => {
    const first = await asked('email carol about the budget');
    assert.equal(await resumed(first.threadId, { decisions: [{ type: 'reject', message: 'not before Monday' }] }), 'Not sent. Your note: not before Monday');
    const second = await asked('email carol about the budget');
    assert.equal(await resumed(second.threadId, { decisions: [{ type: 'reject' }] }), 'Not sent.');
  });

  it('a malformed answer fails no run: no decision drops the draft, an edit without its action sends it unchanged', async () => {
    const { threadId } = await asked('email dan about the trip');
    assert.equal(await resumed(threadId, 'yes'), 'Not sent.');
    const again = await asked('email dan about the trip');
    assert.equal(await resumed(again.threadId, { decisions: [{ type: 'edit' }] }), 'Sent to dan@example.com: "the trip".');
  });

  it('declares its run settings as a context schema: an enum, a number, a boolean and a string with a default', async () => {
    const schemas = await client.assistants.getSchemas('approval');
    const context = schemas.context_schema as { properties: Record<string, Record<string, unknown>> };
    assert.ok(Object.keys(context.properties).length >= 2, 'at least two context fields');
    assert.deepEqual(context.properties.priority.enum, ['low', 'normal', 'high']);
    assert.equal(context.properties.priority.default, 'normal');
    assert.equal(context.properties.max_words.type, 'integer');
    assert.deepEqual([context.properties.ask_first.type, context.properties.ask_first.default], ['boolean', true]);
    assert.deepEqual([context.properties.greeting.type, context.properties.greeting.default], ['string', 'Hello']);
  });

  it('a run with settings drafts with them, and sends at once when it is not to ask', async () => {
    const thread = await client.threads.create();
    const context = { priority: 'high', ask_first: false, greeting: 'Hi', max_words: 3 };
    const values = (await client.runs.wait(thread.thread_id, 'approval', {
      input: { messages: [{ role: 'user', content: 'email eve about the launch' }] },
      context,
    })) as { messages: { content: string }[] };
    assert.equal(values.messages.at(-1)!.content, 'Sent to eve@example.com: "[urgent] the launch".');
    const asked = await client.threads.create();
    await client.runs.wait(asked.thread_id, 'approval', {
      input: { messages: [{ role: 'user', content: 'email eve about the launch' }] },
      context: { greeting: 'Hi', max_words: 3 },
    });
    const [pending] = (await client.threads.getState(asked.thread_id)).tasks.flatMap((t) => t.interrupts ?? []);
    assert.equal((pending.value as any).action_requests[0].args.body, 'Hi,\n\nAbout the launch:\n');
  });
});
