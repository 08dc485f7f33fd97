// The chat panel: sends a message to an assistant on a thread and shows the reply as it
// streams (stream mode messages-tuple), token by token; an interrupt gets a resume form.
// The run's `tasks` events tell which nodes are executing (for the graph view to highlight).
import type { ThreadState } from '@langchain/langgraph-sdk';
import { useEffect, useRef, useState } from 'preact/hooks';
import { agent } from './api';
import { runOptions, type RunSettings } from './runSettings';
import { ErrorNotice, short } from './components';
import { interruptsOf, pauseOf, PendingInterrupts, type Pause, type PendingInterrupt } from './interrupts';
import { MessageList, textOf, upsertMessage, type Message } from './messages';
import { InputHistory, onFirstLine, onLastLine } from './inputHistory';

/**
 * The thread's messages as the server tells them, unless they lack what was just sent (a
 * mock server answers its spec example): then what is on screen stays, and the server's
 * messages it does not have yet follow, so the user's words are never replaced.
 */
function keepSent(shown: Message[], server: Message[], sent: string | undefined): Message[] {
  if (sent === undefined || server.some((m) => (m.type === 'human' || m.type === 'user') && textOf(m.content) === sent)) return server;
  const known = new Set(shown.map((m) => m.id).filter(Boolean));
  return [...shown, ...server.filter((m) => !m.id || !known.has(m.id))].filter((m, i, all) => !m.id || all.findIndex((o) => o.id === m.id) === i);
}

/** The nodes executing after one `tasks` event: a task starts with its input, ends with its result or error. */
function runningAfter(running: string[], task: { id?: string; name?: string; input?: unknown; result?: unknown; error?: unknown }): string[] {
  if (typeof task?.id !== 'string' || typeof task.name !== 'string') return running;
  const key = `${task.id}:${task.name}`;
  const ended = 'result' in task || 'error' in task;
  return ended ? running.filter((k) => k !== key) : running.includes(key) ? running : [...running, key];
}

/** Node names of `id:name` task keys. */
const nodesOf = (running: string[]) => [...new Set(running.map((k) => k.slice(k.indexOf(':') + 1)))];

export function ChatPanel({
  assistantId,
  threadId: initialThread,
  onRunningNodes,
  settings,
  onSettled,
}: {
  assistantId: string;
  threadId?: string;
  /** Told the nodes executing whenever they change during a run ([] once it ends). */
  onRunningNodes?: (nodes: string[]) => void;
  /** The per-run settings every run of the chat starts with (config, context, breakpoints). */
  settings?: RunSettings;
  /** Told the thread's state once a run ended (and when a thread is opened): where it stopped. */
  onSettled?: (state: ThreadState | null) => void;
}) {
  const [threadId, setThreadId] = useState<string | undefined>(initialThread);
  const [messages, setMessages] = useState<Message[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [interrupts, setInterrupts] = useState<PendingInterrupt[]>([]);
  const [pause, setPause] = useState<Pause | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [lastRun, setLastRun] = useState<string | null>(null);
  const [draft, setDraft] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);
  const history = useRef<InputHistory | null>(null);
  history.current ??= new InputHistory(storageOrNone());
  const log = useRef<HTMLDivElement>(null);
  // the newest message is the one to read: keep the log scrolled to its end as it grows
  useEffect(() => {
    log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [messages, streaming, interrupts]);

  useEffect(() => {
    if (!initialThread) return;
    void agent()
      .threads.getState(initialThread)
      .then((state) => {
        setMessages(((state.values as { messages?: Message[] })?.messages ?? []) as Message[]);
        setInterrupts(interruptsOf(state));
        setPause(pauseOf(state));
        onSettled?.(state);
      })
      .catch(setError);
  }, [initialThread]);

  const stream = async (payload: { input?: unknown; command?: { resume: unknown } }, sent?: string) => {
    setStreaming(true);
    setError(null);
    setInterrupts([]);
    setPause(null);
    try {
      const client = agent();
      let tid = threadId;
      if (!tid) {
        tid = (await client.threads.create({ metadata: { source: 'agentplane dashboard' } })).thread_id;
        setThreadId(tid);
      }
      const streamed = new Set<string>();
      let running: string[] = [];
      let failedInStream: unknown = null;
      const events = client.runs.stream(tid, assistantId, {
        ...payload,
        ...runOptions(settings),
        streamMode: ['messages-tuple', 'values', 'updates', 'tasks'],
      } as never);
      for await (const event of events as AsyncIterable<{ event: string; data: any }>) {
        if (event.event === 'metadata' && typeof event.data?.run_id === 'string') setLastRun(event.data.run_id);
        else if (event.event === 'messages') {
          // messages-tuple: the first event of a message id starts it, later ones are chunks
          const message = event.data[0] as Message;
          const append = /Chunk$/.test(message.type) || (message.id !== undefined && streamed.has(message.id));
          if (message.id) streamed.add(message.id);
          setMessages((list) => upsertMessage(list, message, append));
        } else if (event.event === 'values' && Array.isArray(event.data?.messages)) setMessages((list) => keepSent(list, event.data.messages, sent));
        else if (event.event === 'tasks') {
          const next = runningAfter(running, event.data);
          if (next !== running) onRunningNodes?.(nodesOf((running = next)));
        } else if (event.event === 'error') failedInStream = new Error(event.data?.message ?? JSON.stringify(event.data));
      }
      const state = await client.threads.getState(tid);
      setMessages((list) => keepSent(list, ((state.values as { messages?: Message[] })?.messages ?? []) as Message[], sent));
      setInterrupts(interruptsOf(state));
      const stopped = pauseOf(state);
      setPause(stopped);
      // a node's failure is told once, by the notice of the failed node (with its retry); another error here
      if (failedInStream && stopped?.kind !== 'failed') setError(failedInStream);
      onSettled?.(state);
    } catch (e) {
      setError(e);
    } finally {
      onRunningNodes?.([]);
      setStreaming(false);
      input.current?.focus();
    }
  };

  const send = (event: Event) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || streaming) return;
    setDraft('');
    history.current!.push(text);
    setMessages((list) => [...list, { type: 'human', content: text }]);
    void stream({ input: { messages: [{ role: 'user', content: text }] } }, text);
  };

  return (
    <div class="chat">
      <div class="chat-head">
        {threadId ? (
          <span>
            Thread <a href={`/dashboard/threads/${threadId}`}>{short(threadId)}</a>
          </span>
        ) : (
          <span class="muted">A new thread starts with the first message.</span>
        )}
        <button
          type="button"
          onClick={() => (setThreadId(undefined), setMessages([]), setInterrupts([]), setPause(null), setLastRun(null), onSettled?.(null))}
          disabled={streaming}
        >
          New conversation
        </button>
      </div>
      <div class="chat-log" ref={log} aria-live="polite" aria-busy={streaming}>
        <MessageList messages={messages} label="Conversation" />
        {streaming && <p class="muted">Streaming the reply…</p>}
      </div>
      <ErrorNotice error={error} />
      {!streaming && (
        <PendingInterrupts
          interrupts={interrupts}
          pause={pause}
          failedRunHref={threadId && lastRun ? `/dashboard/threads/${threadId}/runs/${lastRun}` : undefined}
          busy={streaming}
          onResume={(value) => void stream({ command: { resume: value } })}
          // past a breakpoint, a retry, a run from an edit: a run that has no input
          onContinue={() => void stream({ input: null })}
        />
      )}
      <form class="chat-input" onSubmit={send} aria-label="Send a message">
        <label for="chat-message">Message</label>
        <textarea
          id="chat-message"
          ref={input}
          rows={2}
          value={draft}
          onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) send(e);
            const box = e.target as HTMLTextAreaElement;
            const caret = box.selectionStart ?? 0;
            const recalled =
              e.key === 'ArrowUp' && onFirstLine(box.value, caret)
                ? history.current!.up(box.value)
                : e.key === 'ArrowDown' && onLastLine(box.value, caret)
                  ? history.current!.down()
                  : undefined;
            if (recalled === undefined) return;
            e.preventDefault();
            setDraft(recalled);
          }}
        />
        <button type="submit" class="primary" disabled={streaming || !draft.trim()}>
          Send
        </button>
      </form>
    </div>
  );
}

/** The browser's localStorage, or none where it is refused (a sandboxed frame, storage off). */
function storageOrNone(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}
