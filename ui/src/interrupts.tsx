// A thread's pending interrupts and how to resume them, shared by the chat and the thread page.
// A review request gets its buttons, in either of the shapes agents send (reviewOf):
// - today's human-in-the-loop request (LangChain's HITL middleware, agent-chat-ui's inbox):
//   action_requests + review_configs, each action approved, edited or rejected, resumed with
//   `{ decisions: [...] }` once every action is decided;
// - last year's inbox payload (a HumanInterrupt: action_request, config allow_*, description):
//   accept, edit, respond, ignore, resumed with the HumanResponse (a list when it asked with one).
// Any other value gets a free text/JSON answer. A thread with nodes still to run and
// nothing asked says why (pauseOf): a failed run with its error, a breakpoint, or a state
// written from outside that is ready to run; each with the button that goes on.
import type { ThreadState } from '@langchain/langgraph-sdk';
import { useState } from 'preact/hooks';
import { Markdown } from './markdown';

export interface PendingInterrupt {
  id?: string;
  value?: unknown;
}

/** One action to review and what the reviewer may do with it, whatever shape asked for it. */
interface ReviewedAction {
  action: string;
  args: Record<string, unknown>;
  description?: string;
  canAccept: boolean;
  canEdit: boolean;
  canIgnore: boolean;
  /** A text answer instead of a decision: a response (required) or a rejection's reason (optional). */
  note?: { label: string; button: string; required: boolean };
  /** Buttons' names: "Approve" for today's shape, "Accept" for the inbox's. */
  accept: string;
}

/** The reviewer's answer on one action, before it is put in the shape that asked. */
export type ReviewAnswer = { kind: 'accept' } | { kind: 'edit'; args: Record<string, unknown> } | { kind: 'ignore' } | { kind: 'note'; text: string };

interface Review {
  actions: ReviewedAction[];
  /** The resume value for one answer per action, in their order. */
  resumeWith: (answers: ReviewAnswer[]) => unknown;
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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const argsOf = (v: unknown) => (isObject(v) ? v : {});

/** Today's HITL request: `{ action_requests: [{ name, args, description }], review_configs: [{ action_name, allowed_decisions }] }`. */
function hitlReviewOf(value: unknown): Review | undefined {
  if (!isObject(value) || !Array.isArray(value.action_requests) || !Array.isArray(value.review_configs)) return undefined;
  const requests = value.action_requests.filter(isObject);
  if (!requests.length || requests.length !== value.action_requests.length || requests.some((r) => typeof r.name !== 'string')) return undefined;
  const configs = value.review_configs.filter(isObject);
  const actions = requests.map((request): ReviewedAction => {
    const config = configs.find((c) => c.action_name === request.name);
    const allowed = new Set(Array.isArray(config?.allowed_decisions) ? config.allowed_decisions : []);
    return {
      action: request.name as string,
      args: argsOf(request.args),
      description: typeof request.description === 'string' ? request.description : undefined,
      canAccept: allowed.has('approve'),
      canEdit: allowed.has('edit'),
      canIgnore: false,
      note: allowed.has('reject') ? { label: 'Reject, with a reason (optional)', button: 'Reject', required: false } : undefined,
      accept: 'Approve',
    };
  });
  const decisionOf = (answer: ReviewAnswer, n: number) => {
    if (answer.kind === 'edit') return { type: 'edit', edited_action: { name: actions[n].action, args: answer.args } };
    if (answer.kind === 'note') return answer.text ? { type: 'reject', message: answer.text } : { type: 'reject' };
    return { type: answer.kind === 'accept' ? 'approve' : 'reject' };
  };
  return { actions, resumeWith: (answers) => ({ decisions: answers.map(decisionOf) }) };
}

/** Last year's inbox payload: a HumanInterrupt (action_request, config allow_*, description), alone or first of a list. */
function inboxReviewOf(value: unknown): Review | undefined {
  const listed = Array.isArray(value);
  const request = listed ? value[0] : value;
  if (!isObject(request) || !isObject(request.action_request) || typeof request.action_request.action !== 'string' || !isObject(request.config))
    return undefined;
  const allow = request.config;
  const action = request.action_request.action;
  const reviewed: ReviewedAction = {
    action,
    args: argsOf(request.action_request.args),
    description: typeof request.description === 'string' ? request.description : undefined,
    canAccept: allow.allow_accept === true,
    canEdit: allow.allow_edit === true,
    canIgnore: allow.allow_ignore === true,
    note: allow.allow_respond === true ? { label: 'Respond instead', button: 'Send response', required: true } : undefined,
    accept: 'Accept',
  };
  const responseOf = (answer: ReviewAnswer) => {
    if (answer.kind === 'edit') return { type: 'edit', args: { action, args: answer.args } };
    if (answer.kind === 'note') return { type: 'response', args: answer.text };
    return { type: answer.kind, args: null };
  };
  return { actions: [reviewed], resumeWith: ([answer]) => (listed ? [responseOf(answer)] : responseOf(answer)) };
}

/** The review an interrupt's value asks for, in either shape, if it is one. */
export const reviewOf = (value: unknown): Review | undefined => hitlReviewOf(value) ?? inboxReviewOf(value);

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
  const review = reviewOf(first.value);
  if (review) return <ReviewRequest key={first.id ?? JSON.stringify(first.value)} review={review} busy={busy} onResume={onResume} />;
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
        // LangGraph takes a falsy resume value for none ("Received empty Command input"): an
        // empty answer (the consent step's "then resume") resumes with true
        let value: unknown = text.trim() === '' ? true : text;
        try {
          if (text.trim() !== '') value = JSON.parse(text);
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

/** Each action in turn; the run resumes once every one is answered. */
function ReviewRequest({ review, busy, onResume }: { review: Review; busy: boolean; onResume: (value: unknown) => void }) {
  const [answers, setAnswers] = useState<ReviewAnswer[]>([]);
  const n = answers.length;
  const many = review.actions.length > 1;
  return (
    <InboxRequest
      key={n}
      request={review.actions[n]}
      position={many ? `${n + 1} of ${review.actions.length}` : undefined}
      busy={busy}
      onAnswer={(answer) => {
        const all = [...answers, answer];
        if (all.length === review.actions.length) onResume(review.resumeWith(all));
        else setAnswers(all);
      }}
    />
  );
}

function InboxRequest({
  request,
  position,
  busy,
  onAnswer,
}: {
  request: ReviewedAction;
  position?: string;
  busy: boolean;
  onAnswer: (answer: ReviewAnswer) => void;
}) {
  const { action, args, note: noteAsked } = request;
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(Object.entries(args).map(([k, v]) => [k, shown(v)])));
  const [note, setNote] = useState('');
  const edited = Object.entries(args).some(([k, v]) => draft[k] !== shown(v));
  const editedArgs = () => Object.fromEntries(Object.entries(args).map(([k, v]) => [k, parsedLike(draft[k], v)]));
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
        {position ? `Action ${position}: ` : 'Action '}
        <code>{action}</code>
        {request.canEdit ? `: its arguments can be edited before ${request.accept === 'Approve' ? 'approving' : 'accepting'}.` : ''}
      </p>
      <div class="inbox-args">
        {Object.keys(args).map((k) => {
          const id = `inbox-arg-${k}`;
          const multiline = draft[k].includes('\n') || draft[k].length > 60;
          const onInput = (e: Event) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value });
          return (
            <div class="field" key={k}>
              <label for={id}>{k}</label>
              {multiline ? (
                <textarea id={id} rows={3} readOnly={!request.canEdit} value={draft[k]} onInput={onInput} />
              ) : (
                <input id={id} readOnly={!request.canEdit} value={draft[k]} onInput={onInput} />
              )}
            </div>
          );
        })}
      </div>
      <div class="buttons">
        {request.canAccept && !edited && (
          <button type="button" class="primary" disabled={busy} onClick={() => onAnswer({ kind: 'accept' })}>
            {request.accept}
          </button>
        )}
        {request.canEdit && edited && (
          <button type="button" class="primary" disabled={busy} onClick={() => onAnswer({ kind: 'edit', args: editedArgs() })}>
            {request.accept} with edits
          </button>
        )}
        {request.canIgnore && (
          <button type="button" disabled={busy} onClick={() => onAnswer({ kind: 'ignore' })}>
            Ignore
          </button>
        )}
      </div>
      {noteAsked && (
        <form
          class="inline-form"
          aria-label={noteAsked.required ? 'A response instead of a decision' : 'A rejection'}
          onSubmit={(e) => {
            e.preventDefault();
            if (note.trim() || !noteAsked.required) onAnswer({ kind: 'note', text: note.trim() });
          }}
        >
          <label for="inbox-note">{noteAsked.label}</label>
          <input id="inbox-note" value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy || (noteAsked.required && !note.trim())}>
            {noteAsked.button}
          </button>
        </form>
      )}
    </div>
  );
}
