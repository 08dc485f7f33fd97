// The SDK's React `useStream` hook, headless (React 19 + happy-dom + testing-library, as
// test/handlers/agent-server/runStreams.useStream.test.ts runs it), as a chat UI uses it: what is on screen after
// each step is the observation. The DOM is set up when the first of these scenarios runs,
// after the plain SDK scenarios (they run without one, as in Node).
import assert from 'node:assert/strict';
import { bearer, USER, type Side } from './harness.ts';
import type { Scenario } from './scenarios.ts';

type Shown = { type: string; content: unknown };
interface ChatStream {
  messages: Shown[];
  isLoading: boolean;
  interrupt: { value?: unknown } | undefined;
  values: unknown;
  error: unknown;
  submit(values: unknown, options?: Record<string, unknown>): Promise<void>;
}
interface Hooks {
  mount(side: Side, assistantId: string, fetchStateHistory?: boolean, threadId?: string): { current(): ChatStream; unmount(): void };
  act(work: () => Promise<unknown>): Promise<void>;
  until(check: () => void, timeoutMs?: number): Promise<void>;
}

let loaded: Promise<Hooks> | undefined;

/** Imported by computed names: their type declarations would bring the DOM library into the whole typecheck. */
async function loadHooks(): Promise<Hooks> {
  const happyDom = 'happy-dom';
  const { Window } = (await import(happyDom)) as { Window: new (options: { url: string }) => any };
  const dom = new Window({ url: 'http://localhost:3000' });
  Object.assign(globalThis, { window: dom, document: dom.document, navigator: dom.navigator, HTMLElement: dom.HTMLElement, IS_REACT_ACT_ENVIRONMENT: true });
  process.once('exit', () => void dom.happyDOM.close());
  const testingLibrary = '@testing-library/react';
  const { renderHook, waitFor, act } = (await import(testingLibrary)) as {
    renderHook<T>(hook: () => T): { result: { current: T }; unmount(): void };
    waitFor(check: () => void, options: { timeout: number; interval: number }): Promise<void>;
    act(work: () => Promise<unknown>): Promise<void>;
  };
  const sdkReact = '@langchain/langgraph-sdk/react';
  const { useStream } = (await import(sdkReact)) as { useStream(options: Record<string, unknown>): ChatStream };
  const reactModule = 'react';
  const { useState } = (await import(reactModule)) as { useState<T>(initial: T): [T, (value: T) => void] };
  return {
    mount(side, assistantId, fetchStateHistory = true, existingThread) {
      // as a chat UI holds it: the thread id in state, set when the hook creates the thread
      const hook = renderHook(() => {
        const [threadId, setThreadId] = useState<string | null>(existingThread ?? null);
        return useStream({
          apiUrl: side.url,
          defaultHeaders: bearer(USER),
          assistantId,
          threadId,
          onThreadId: setThreadId,
          fetchStateHistory,
          messagesKey: 'messages',
        });
      });
      return { current: () => hook.result.current, unmount: () => hook.unmount() };
    },
    act,
    until: (check, timeoutMs = 30_000) => waitFor(check, { timeout: timeoutMs, interval: 25 }),
  };
}

const screen = (stream: ChatStream) => stream.messages.map((m) => `${m.type}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);

type Mounted = ReturnType<Hooks['mount']>;

/** Submits, then waits until `shown` holds and the hook is done loading. */
async function submitAndSettle(
  hooks: Hooks,
  hook: Mounted,
  values: unknown,
  options: Record<string, unknown> | undefined,
  shown: (stream: ChatStream) => void,
) {
  await hooks.act(() => hook.current().submit(values, options));
  await hooks.until(() => shown(hook.current()));
  await hooks.until(() => assert.equal(hook.current().isLoading, false));
}

export const useStreamScenarios: Scenario[] = [
  {
    name: 'useStream chat',
    covers: 'useStream: submit a message on a new thread, the messages on screen',
    oneAtATime: true,
    async run(side) {
      const hooks = await (loaded ??= loadHooks());
      const hook = hooks.mount(side, 'chat');
      await submitAndSettle(hooks, hook, { messages: [{ type: 'human', content: 'hello hook' }] }, undefined, (s) => assert.equal(s.messages.length, 2));
      const shown = screen(hook.current());
      hook.unmount();
      return { shown };
    },
  },
  {
    name: 'useStream interrupt',
    covers: 'useStream: an interrupt on screen, resumed with a command',
    oneAtATime: true,
    async run(side) {
      const hooks = await (loaded ??= loadHooks());
      const hook = hooks.mount(side, 'approval');
      await submitAndSettle(hooks, hook, { messages: [{ type: 'human', content: 'ship it?' }] }, undefined, (s) =>
        assert.ok(s.interrupt, 'an interrupt is shown'),
      );
      const interrupt = hook.current().interrupt;
      const before = screen(hook.current());
      await submitAndSettle(hooks, hook, undefined, { command: { resume: 'yes' } }, (s) => assert.equal(s.messages.length, 2));
      const after = screen(hook.current());
      hook.unmount();
      return { interrupt, before, after, interruptAfter: hook.current().interrupt ?? null };
    },
  },
  {
    name: 'useStream without history',
    covers: 'useStream without fetchStateHistory on an existing thread: what the run streamed stays on screen',
    oneAtATime: true,
    async run(side) {
      const hooks = await (loaded ??= loadHooks());
      // on a thread that exists: the hook does not switch threads while the run streams
      const thread = await side.client().threads.create();
      const hook = hooks.mount(side, 'chat', false, thread.thread_id);
      await hooks.act(() => hook.current().submit({ messages: [{ type: 'human', content: 'no history' }] }));
      await hooks.until(() => assert.equal(hook.current().isLoading, false));
      // the reply shows once the hook has read the thread's state; a server whose answer the
      // hook cannot use never shows it, and is observed as it stands after 10 s
      await hooks.until(() => assert.equal(hook.current().messages.length, 2), 10_000).catch(() => {});
      const out = { shown: screen(hook.current()), error: hook.current().error ? String(hook.current().error) : null, values: hook.current().values };
      hook.unmount();
      return out;
    },
  },
];
