// The SDK's React `useStream` hook (headless: React 19 + happy-dom + testing-library) against
// agentplane, as agent-chat-ui uses it: `fetchStateHistory: true`, send a message, reload
// the thread, regenerate a reply from its parent checkpoint, then interrupt and resume.
// What is asserted is what a user would see: the messages on screen at each step.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';

type Shown = { type: string; content: unknown; id?: string };

// a DOM for React before React loads; Node's own fetch stays (the SDK's requests go to the app's in-process fetch)
// (imported by a computed name: happy-dom's type declarations would retype the DOM globals
// of the Playwright tests, which run in a real browser, for the whole typecheck)
const happyDom = 'happy-dom';
const { Window } = (await import(happyDom)) as { Window: new (options: { url: string }) => any };
const dom = new Window({ url: 'http://localhost:3000' });
Object.assign(globalThis, { window: dom, document: dom.document, navigator: dom.navigator, HTMLElement: dom.HTMLElement, IS_REACT_ACT_ENVIRONMENT: true });
// (its types are kept out too: they bring the DOM library into the whole typecheck)
const testingLibrary = '@testing-library/react';
const { renderHook, waitFor, act, cleanup } = (await import(testingLibrary)) as {
  renderHook<T>(hook: () => T): { result: { current: T }; unmount(): void };
  waitFor(check: () => void, options: { timeout: number; interval: number }): Promise<void>;
  act(work: () => Promise<unknown>): Promise<void>;
  cleanup(): void;
};
const sdkReact = '@langchain/langgraph-sdk/react';
const { useStream } = (await import(sdkReact)) as { useStream(options: Record<string, unknown>): ChatStream };
const reactModule = 'react';
const { useState } = (await import(reactModule)) as { useState<T>(initial: T): [T, (value: T) => void] };

/** What the test reads of `useStream`'s answer (typed here: the SDK's React types pull the DOM library into the typecheck). */
interface ChatStream {
  messages: Shown[];
  isLoading: boolean;
  history: unknown[];
  interrupt: { value?: unknown } | undefined;
  submit(values: unknown, options?: Record<string, unknown>): Promise<void>;
  getMessagesMetadata(message: Shown): { firstSeenState?: { parent_checkpoint?: { checkpoint_id?: string } | null }; branchOptions?: string[] } | undefined;
}

const screen = (messages: Shown[]) => messages.map((m) => `${m.type}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
const until = (check: () => void) => waitFor(check, { timeout: 10_000, interval: 20 });

describe('useStream (React) against agentplane', () => {
  let server: InProcessApp;
  before(async () => {
    server = await areaApp('agent-server', { project: testProject });
  });
  after(async () => {
    cleanup();
    await server.close();
    await dom.happyDOM.close();
  });

  /** As a chat UI holds it: the thread id in state, set when the hook creates the thread. */
  function mount(assistantId: string, initialThreadId: string | null, onThreadId?: (id: string) => void) {
    return renderHook(() => {
      const [threadId, setThreadId] = useState(initialThreadId);
      const changeThread = (id: string) => {
        setThreadId(id);
        onThreadId?.(id);
      };
      return useStream({
        apiUrl: server.url,
        apiKey: server.key,
        callerOptions: { fetch: server.fetch },
        assistantId,
        threadId,
        onThreadId: changeThread,
        fetchStateHistory: true,
        messagesKey: 'messages',
      });
    });
  }

  it('send → reload the thread → regenerate from the parent checkpoint', async () => {
    let threadId: string | null = null;
    const first = mount('echo', null, (id) => (threadId = id));
    await act(() => first.result.current.submit({ messages: [{ type: 'human', content: 'hello there' }] }));
    await until(() => assert.deepEqual(screen(first.result.current.messages), ['human:hello there', 'ai:hello there']));
    await until(() => assert.equal(first.result.current.isLoading, false));
    assert.ok(threadId, 'the hook reported the new thread');
    await act(() => first.result.current.submit({ messages: [{ type: 'human', content: 'and again' }] }));
    await until(() => assert.deepEqual(screen(first.result.current.messages), ['human:hello there', 'ai:hello there', 'human:and again', 'ai:and again']));
    first.unmount();

    // a reopened thread shows its messages (from history), before anything is sent
    const reopened = mount('echo', threadId);
    await until(() => assert.deepEqual(screen(reopened.result.current.messages), ['human:hello there', 'ai:hello there', 'human:and again', 'ai:and again']));
    await until(() => assert.ok(reopened.result.current.history.length >= 4, `history: ${reopened.result.current.history.length}`));

    // regenerate the last reply: fork from the checkpoint before it was written
    const lastReply = reopened.result.current.messages.at(-1)!;
    const metadata = reopened.result.current.getMessagesMetadata(lastReply);
    const parent = metadata?.firstSeenState?.parent_checkpoint;
    assert.ok(parent?.checkpoint_id, 'the reply has a parent checkpoint to regenerate from');
    await act(() => reopened.result.current.submit(undefined, { checkpoint: parent }));
    await until(() => assert.equal(reopened.result.current.isLoading, false));
    await until(() => {
      const shown = reopened.result.current.messages;
      assert.deepEqual(screen(shown), ['human:hello there', 'ai:hello there', 'human:and again', 'ai:and again']);
      assert.notEqual(shown.at(-1)!.id, lastReply.id, 'the reply is a new message on a new branch');
    });
    // the earlier reply is still there, on the other branch
    const regenerated = reopened.result.current.getMessagesMetadata(reopened.result.current.messages.at(-1)!);
    assert.ok((regenerated?.branchOptions?.length ?? 0) >= 2, `branches: ${JSON.stringify(regenerated?.branchOptions)}`);
    reopened.unmount();
  });

  it('interrupt → resume', async () => {
    const hook = mount('approval', null);
    await act(() => hook.result.current.submit({ messages: [{ type: 'human', content: 'ship it?' }] }));
    await until(() => assert.deepEqual(hook.result.current.interrupt?.value, { question: 'Approve?' }));
    assert.deepEqual(screen(hook.result.current.messages), ['human:ship it?']);
    await act(() => hook.result.current.submit(undefined, { command: { resume: 'yes' } }));
    await until(() => assert.deepEqual(screen(hook.result.current.messages), ['human:ship it?', 'ai:approved: yes']));
    await until(() => assert.equal(hook.result.current.interrupt, undefined));
    hook.unmount();
  });
});
