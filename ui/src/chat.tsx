// The chat panel: sends a message to an assistant on a thread and shows the reply as it
// streams (stream mode messages-tuple), token by token; an interrupt gets a resume form.
import { useEffect, useRef, useState } from 'preact/hooks';
import { agent } from './api';
import { ErrorNotice, short } from './components';
import { MessageList, upsertMessage, type Message } from './messages';

interface PendingInterrupt {
  value?: unknown;
}

export function ChatPanel({ assistantId, threadId: initialThread }: { assistantId: string; threadId?: string }) {
  const [threadId, setThreadId] = useState<string | undefined>(initialThread);
  const [messages, setMessages] = useState<Message[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [interrupts, setInterrupts] = useState<PendingInterrupt[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [draft, setDraft] = useState('');
  const [resume, setResume] = useState('');
  const input = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (!initialThread) return;
    void agent()
      .threads.getState(initialThread)
      .then((state) => {
        setMessages(((state.values as { messages?: Message[] })?.messages ?? []) as Message[]);
        setInterrupts(state.tasks.flatMap((t) => t.interrupts ?? []));
      })
      .catch(setError);
  }, [initialThread]);

  const stream = async (payload: { input?: unknown; command?: { resume: unknown } }) => {
    setStreaming(true);
    setError(null);
    setInterrupts([]);
    try {
      const client = agent();
      let tid = threadId;
      if (!tid) {
        tid = (await client.threads.create({ metadata: { source: 'agentplane dashboard' } })).thread_id;
        setThreadId(tid);
      }
      const streamed = new Set<string>();
      const events = client.runs.stream(tid, assistantId, { ...payload, streamMode: ['messages-tuple', 'values', 'updates'] } as never);
      for await (const event of events as AsyncIterable<{ event: string; data: any }>) {
        if (event.event === 'messages') {
          // messages-tuple: the first event of a message id starts it, later ones are chunks
          const message = event.data[0] as Message;
          const append = /Chunk$/.test(message.type) || (message.id !== undefined && streamed.has(message.id));
          if (message.id) streamed.add(message.id);
          setMessages((list) => upsertMessage(list, message, append));
        }
        else if (event.event === 'values' && Array.isArray(event.data?.messages)) setMessages(event.data.messages);
        else if (event.event === 'error') setError(new Error(event.data?.message ?? JSON.stringify(event.data)));
      }
      const state = await client.threads.getState(tid);
      setMessages(((state.values as { messages?: Message[] })?.messages ?? []) as Message[]);
      setInterrupts(state.tasks.flatMap((t) => t.interrupts ?? []));
    } catch (e) {
      setError(e);
    } finally {
      setStreaming(false);
      input.current?.focus();
    }
  };

  const send = (event: Event) => {
    event.preventDefault();
    const text = draft.trim();
    if (!text || streaming) return;
    setDraft('');
    setMessages((list) => [...list, { type: 'human', content: text }]);
    void stream({ input: { messages: [{ role: 'user', content: text }] } });
  };
  const sendResume = (event: Event) => {
    event.preventDefault();
    let value: unknown = resume;
    try {
      value = JSON.parse(resume);
    } catch {
      // plain text resumes as a string
    }
    setResume('');
    void stream({ command: { resume: value } });
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
        <button type="button" onClick={() => (setThreadId(undefined), setMessages([]), setInterrupts([]))} disabled={streaming}>
          New conversation
        </button>
      </div>
      <div class="chat-log" aria-live="polite" aria-busy={streaming}>
        <MessageList messages={messages} label="Conversation" />
        {streaming && <p class="muted">Streaming the reply…</p>}
      </div>
      <ErrorNotice error={error} />
      {interrupts.length > 0 && !streaming && (
        <form class="interrupt" onSubmit={sendResume} aria-label="Resume the interrupted run">
          <p>
            <strong>The run is waiting for input.</strong>
          </p>
          {interrupts.map((i, n) => (
            <pre key={n}>{typeof i.value === 'string' ? i.value : JSON.stringify(i.value, null, 2)}</pre>
          ))}
          <label for="resume-value">Resume with (text or JSON)</label>
          <input id="resume-value" value={resume} onInput={(e) => setResume((e.target as HTMLInputElement).value)} />
          <button type="submit" class="primary">
            Resume
          </button>
        </form>
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
          }}
        />
        <button type="submit" class="primary" disabled={streaming || !draft.trim()}>
          Send
        </button>
      </form>
    </div>
  );
}
