// A thread's pending interrupts and how to resume them, shared by the chat and the thread page.
// An interrupt whose value is agent-chat-ui's inbox payload (a HumanInterrupt: action_request,
// config allow_*, description) gets its buttons: accept, edit the action's arguments, respond,
// ignore; it is resumed with the HumanResponse the graph expects (a list when it asked with a
// list). Any other value gets a free text/JSON answer. A thread with nodes still to run and
// nothing asked says why (pauseOf): a failed run with its error, a breakpoint, or a state
// written from outside that is ready to run; each with the button that goes on.
import type { ThreadState } from '@langchain/langgraph-sdk';
import { useState } from 'preact/hooks';
import { Markdown } from './markdown';

export interface PendingInterrupt {
  id?: string;
  value?: unknown;
}

interface HumanInterrupt {
  action_request: { action: string; args: Record<string, unknown> };
  config: { allow_accept?: boolean; allow_edit?: boolean; allow_respond?: boolean; allow_ignore?: boolean };
  description?: string;
}

/** The interrupts the thread waits on (every task's). */
export const interruptsOf = (state: Pick<ThreadState, 'tasks'> | undefined): PendingInterrupt[] =>
  (state?.tasks ?? []).flatMap((t) => (t.interrupts ?? []) as PendingInterrupt[]);

/**
 * Why a thread that nothing asks about still has work left, as its checkpoint tells:
 * - `failed`: a task of the last run raised (its error is kept on the task); running again retries it;
 * - `breakpoint`: a run stopped in its loop before nodes (interrupt_before/after) and the thread is interrupted;
 * - `ready`: the state was written from outside (an edit, a fork, `as_node`), or a run was
 *   stopped: the next nodes run when a run starts from here.
 * `threadStatus`, where known, keeps a stopped or cancelled run from passing for a breakpoint.
 */
export type Pause = { kind: 'failed'; nodes: string[]; errors: string[] } | { kind: 'breakpoint'; nodes: string[] } | { kind: 'ready'; nodes: string[] };

type PausedState = Pick<ThreadState, 'tasks' | 'next' | 'metadata'>;

export function pauseOf(state: PausedState | undefined, threadStatus?: string): Pause | null {
  if (!state || interruptsOf(state).length) return null;
  const failed = (state.tasks ?? []).filter((t) => t.error);
  if (failed.length) return { kind: 'failed', nodes: failed.map((t) => t.name), errors: failed.map((t) => String(t.error)) };
  if (!state.next.length) return null;
  const source = (state.metadata as { source?: string } | null | undefined)?.source;
  const inLoop = source === 'loop' || source === 'input';
  if (inLoop && (threadStatus === undefined || threadStatus === 'interrupted')) return { kind: 'breakpoint', nodes: state.next };
  return { kind: 'ready', nodes: state.next };
}

/** The inbox request in an interrupt's value (one, or the first of a list), if it is one. */
function inboxOf(value: unknown): { request: HumanInterrupt; listed: boolean } | undefined {
  const listed = Array.isArray(value);
  const request = (listed ? value[0] : value) as Partial<HumanInterrupt> | undefined;
  if (!request || typeof request !== 'object' || !request.action_request || typeof request.action_request.action !== 'string' || !request.config)
    return undefined;
  return { request: request as HumanInterrupt, listed };
}

export interface ResumeProps {
  interrupts: PendingInterrupt[];
  /** Why the thread stopped with work left, when nothing asked (pauseOf). */
  pause: Pause | null;
  /** The page of the run that failed, where known. */
  failedRunHref?: string;
  busy: boolean;
  onResume: (value: unknown) => void;
  /** A run without input from the thread's checkpoint: past a breakpoint, a retry, a run from an edit. */
  onContinue: () => void;
}

export function PendingInterrupts({ interrupts, pause, failedRunHref, busy, onResume, onContinue }: ResumeProps) {
  if (interrupts.length === 0 && !pause) return null;
  if (interrupts.length === 0) return <PauseNotice pause={pause!} failedRunHref={failedRunHref} busy={busy} onContinue={onContinue} />;
  const [first] = interrupts;
  const inbox = inboxOf(first.value);
  if (inbox)
    return (
      <InboxRequest
        key={first.id ?? JSON.stringify(first.value)}
        request={inbox.request}
        busy={busy}
        onAnswer={(answer) => onResume(inbox.listed ? [answer] : answer)}
      />
    );
  return <FreeAnswer interrupts={interrupts} busy={busy} onResume={onResume} />;
}

function PauseNotice({ pause, failedRunHref, busy, onContinue }: { pause: Pause; failedRunHref?: string; busy: boolean; onContinue: () => void }) {
  const nodes = pause.nodes.join(', ');
  if (pause.kind === 'failed')
    return (
      <div class="interrupt failed" role="alert" aria-label="The last run failed">
        <p>
          <strong>The last run failed in {nodes}.</strong>
          {failedRunHref && (
            <>
              {' '}
              <a href={failedRunHref}>See the run and its trace</a>
            </>
          )}
        </p>
        {pause.errors.map((error, n) => (
          <pre key={n} class="error-text">
            {error}
          </pre>
        ))}
        <button type="button" disabled={busy} onClick={onContinue}>
          Retry from {nodes}
        </button>
      </div>
    );
  if (pause.kind === 'breakpoint')
    return (
      <div class="interrupt" role="region" aria-label="Paused at a breakpoint">
        <p>
          <strong>Paused before {nodes}</strong> (a breakpoint): continue the run to go on.
        </p>
        <button type="button" class="primary" disabled={busy} onClick={onContinue}>
          Continue
        </button>
      </div>
    );
  return (
    <div class="interrupt" role="region" aria-label="Ready to run from here">
      <p>
        <strong>Ready to run from here:</strong> {nodes} runs next.
      </p>
      <button type="button" class="primary" disabled={busy} onClick={onContinue}>
        Run from here
      </button>
    </div>
  );
}

function FreeAnswer({ interrupts, busy, onResume }: { interrupts: PendingInterrupt[]; busy: boolean; onResume: (value: unknown) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="interrupt"
      aria-label="Resume the interrupted run"
      onSubmit={(e) => {
        e.preventDefault();
        let value: unknown = text;
        try {
          value = JSON.parse(text);
        } catch {
          // plain text resumes as a string
        }
        setText('');
        onResume(value);
      }}
    >
      <p>
        <strong>The run is waiting for input.</strong>
      </p>
      {interrupts.map((i, n) => (
        <pre key={i.id ?? n}>{typeof i.value === 'string' ? i.value : JSON.stringify(i.value, null, 2)}</pre>
      ))}
      {interrupts.map((i, n) => {
        // agent auth's consent step (agentplane-server/auth): the page to open, then resume
        const asked = i.value as { type?: unknown; url?: unknown; provider?: unknown } | null;
        if (asked?.type !== 'auth_required' || typeof asked.url !== 'string' || !/^https?:\/\//i.test(asked.url)) return null;
        return (
          <p key={`consent-${i.id ?? n}`}>
            <a href={asked.url} target="_blank" rel="noreferrer">
              Consent at {String(asked.provider ?? 'the provider')}
            </a>
            , then resume.
          </p>
        );
      })}
      <label for="resume-value">Resume with (text or JSON)</label>
      <input id="resume-value" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
      <button type="submit" class="primary" disabled={busy}>
        Resume
      </button>
    </form>
  );
}

/** An argument as it is edited: strings as they are, anything else as JSON. */
const shown = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const parsedLike = (text: string, before: unknown) => {
  if (typeof before === 'string') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

function InboxRequest({ request, busy, onAnswer }: { request: HumanInterrupt; busy: boolean; onAnswer: (answer: { type: string; args: unknown }) => void }) {
  const { action, args } = request.action_request;
  const allow = request.config;
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(Object.entries(args ?? {}).map(([k, v]) => [k, shown(v)])));
  const [note, setNote] = useState('');
  const edited = Object.entries(args ?? {}).some(([k, v]) => draft[k] !== shown(v));
  const editedArgs = () => Object.fromEntries(Object.entries(args ?? {}).map(([k, v]) => [k, parsedLike(draft[k], v)]));
  return (
    <div class="interrupt inbox" role="region" aria-label="The run asks for a decision">
      {request.description ? (
        <Markdown text={request.description} class="inbox-description" />
      ) : (
        <p>
          <strong>The run is waiting for a decision.</strong>
        </p>
      )}
      <p class="muted">
        Action <code>{action}</code>
        {allow.allow_edit ? ': its arguments can be edited before accepting.' : ''}
      </p>
      <div class="inbox-args">
        {Object.keys(args ?? {}).map((k) => {
          const id = `inbox-arg-${k}`;
          const multiline = draft[k].includes('\n') || draft[k].length > 60;
          const onInput = (e: Event) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value });
          return (
            <div class="field" key={k}>
              <label for={id}>{k}</label>
              {multiline ? (
                <textarea id={id} rows={3} readOnly={!allow.allow_edit} value={draft[k]} onInput={onInput} />
              ) : (
                <input id={id} readOnly={!allow.allow_edit} value={draft[k]} onInput={onInput} />
              )}
            </div>
          );
        })}
      </div>
      <div class="buttons">
        {allow.allow_accept && !edited && (
          <button type="button" class="primary" disabled={busy} onClick={() => onAnswer({ type: 'accept', args: null })}>
            Accept
          </button>
        )}
        {allow.allow_edit && edited && (
          <button type="button" class="primary" disabled={busy} onClick={() => onAnswer({ type: 'edit', args: { action, args: editedArgs() } })}>
            Accept with edits
          </button>
        )}
        {allow.allow_ignore && (
          <button type="button" disabled={busy} onClick={() => onAnswer({ type: 'ignore', args: null })}>
            Ignore
          </button>
        )}
      </div>
      {allow.allow_respond && (
        <form
          class="inline-form"
          aria-label="A response instead of a decision"
          onSubmit={(e) => {
            e.preventDefault();
            if (note.trim()) onAnswer({ type: 'response', args: note.trim() });
          }}
        >
          <label for="inbox-response">Respond instead</label>
          <input id="inbox-response" value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy || !note.trim()}>
            Send response
          </button>
        </form>
      )}
    </div>
  );
}
