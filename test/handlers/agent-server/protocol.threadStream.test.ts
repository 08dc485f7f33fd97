// The SDK's `client.threads.stream()` (@langchain/langgraph-sdk 1.15, protocol v2) against
// agentplane, as an app uses it: submit, the answer token by token, the tool call and its
// output, the subgraph that stops for approval, the interrupt answered with input.respond,
// the final state, over SSE and over WebSocket; then a second client coming back to the
// thread is replayed its events. What is expected is what the upstream dev server gives the
// same client (test/differential/protocolV2Scenarios.ts compares the two side by side).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { followAssistant, replayThread, type Server } from '../../differential/threadStream.ts';

const project = { graphs: { assistant: './test/fixtures/differential-project/src/assistant.ts:graph' } };

/** The tool call's message, then the answer in four tokens; then the review's, after the interrupt. */
const STREAMED = [
  { namespace: ['agent'], tokens: [] },
  { namespace: ['agent'], tokens: ['The ', 'answer ', 'is ', '42.'] },
];

describe('client.threads.stream() (SDK 1.15, protocol v2) against agentplane', () => {
  let server: TestServer;
  let as: Server;
  before(async () => {
    server = await startTestServer({ project, dataDir: null });
    as = { url: server.url, headers: { 'x-api-key': server.key } };
  });
  after(() => server?.close());

  for (const transport of ['sse', 'websocket'] as const) {
    it(`streams tokens, a tool call and a subgraph, stops for input and resumes (${transport})`, async () => {
      const { observed } = await followAssistant(as, { question: 'what is 6 * 7', answer: 'ship it', transport });
      assert.deepEqual(
        observed.messages.map(({ namespace, tokens }) => ({ namespace, tokens })),
        STREAMED,
      );
      assert.ok(observed.toolCalls.length > 0);
      for (const call of observed.toolCalls)
        assert.deepEqual(call, { name: 'calculator', callId: 'call_calc_1', input: { expression: 'what is 6 * 7' }, output: '42' });
      assert.deepEqual(
        observed.subgraphs.map((s) => s.name),
        ['agent', 'tools', 'agent', 'review'],
      );
      assert.ok(observed.interruptedBeforeAnswer);
      assert.deepEqual(observed.interrupts, [{ namespace: ['review'], payload: { question: 'approve the answer?' } }]);
      assert.deepEqual(observed.resumedText, ['reviewed: ship it']);
      assert.deepEqual(observed.finalMessages.at(-1), 'ai: reviewed: ship it');
      assert.deepEqual(observed.finalMessages.slice(0, 1).concat(observed.finalMessages.slice(2, 3)), ['human: what is 6 * 7', 'tool: 42']);
      assert.ok(observed.seqUnique);
    });
  }

  it('a client coming back is replayed the thread from its first event, over SSE and WebSocket', async () => {
    const { threadId } = await followAssistant(as, { question: 'what is 2 + 3', answer: 'fine' });
    for (const transport of ['sse', 'websocket'] as const) {
      const replayed = await replayThread(as, threadId, transport);
      assert.deepEqual(replayed.text, ['', 'The ', 'answer ', 'is ', '5.', 'reviewed: fine'], transport);
      const seqs = replayed.events.map((e) => Number(e.split(' ')[0]));
      assert.deepEqual(
        seqs,
        [...seqs].sort((a, b) => a - b),
        `${transport}: replayed in order`,
      );
      // (upstream's WebSocket replay starts at the first subgraph's events, its SSE one at the run's)
      if (transport === 'sse') assert.equal(replayed.events[0], '1 lifecycle  running');
      assert.match(replayed.events.at(-1)!, / lifecycle {2}completed$/, transport);
      assert.ok(
        replayed.events.some((e) => e.endsWith('lifecycle  interrupted')),
        transport,
      );
    }
  });
});
