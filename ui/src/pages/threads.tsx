// Agent server: threads (search, paging) and a thread's page — messages, state, runs and
// the history of checkpoints (pick one to see the state then, fork a new run from it).
import type { Run, Thread, ThreadState, ThreadStatus } from '@langchain/langgraph-sdk';
import { useState } from 'preact/hooks';
import { agent, hasOperation, statusOf } from '../api';
import { ErrorNotice, Field, NotAvailable, Raw, Section, Status, Time, short, useAction, useLoad } from '../components';
import { interruptsOf, pauseOf, PendingInterrupts } from '../interrupts';
import { MessageList } from '../messages';
import { messagesIn, threadRow } from '../threadRow';
import { Boundary, failureText, Guarded } from '../boundary';
import { navigate } from '../router';
import { AssistantName } from '../assistantName';
import { NodeStep } from '../nodeStep';
import { branchesOf } from '../branches';

const PAGE = 20;
const STATUSES = ['idle', 'busy', 'interrupted', 'error'];

/** `key=value` pairs (comma-separated) as a metadata filter. */
function parseMetadata(text: string): Record<string, string> | undefined {
  const pairs = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => p.split('=').map((s) => s.trim()) as [string, string]);
  return pairs.length ? Object.fromEntries(pairs) : undefined;
}

export function ThreadsPage({ query }: { query: URLSearchParams }) {
  const status = query.get('status') ?? '';
  const metadata = query.get('metadata') ?? '';
  const id = query.get('id') ?? '';
  const assistant = query.get('assistant') ?? '';
  const offset = Number(query.get('offset') ?? 0) || 0;
  const assistants = useLoad(() => agent().assistants.search({ limit: 100 }), []);
  const go = (next: Record<string, string | number>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ status, metadata, id, assistant, offset, ...next })) if (v !== '' && v !== 0) params.set(k, String(v));
    navigate(`/dashboard/threads${params.size ? `?${params}` : ''}`);
  };
  const list = useLoad(
    () =>
      agent().threads.search({
        limit: PAGE,
        offset,
        status: (status || undefined) as ThreadStatus | undefined,
        // a thread's runs leave their assistant in its metadata (as upstream)
        metadata: assistant ? { ...parseMetadata(metadata), assistant_id: assistant } : parseMetadata(metadata),
        ids: id ? [id] : undefined,
        sortBy: 'updated_at',
        sortOrder: 'desc',
      }),
    [status, metadata, id, assistant, offset],
    3000,
  );
  const rows = list.data ?? [];
  const onSearch = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    go({
      status: String(form.get('status') ?? ''),
      assistant: String(form.get('assistant') ?? ''),
      metadata: String(form.get('metadata') ?? ''),
      id: String(form.get('id') ?? ''),
      offset: 0,
    });
  };
  return (
    <>
      <h1>Threads</h1>
      <form class="filters" onSubmit={onSearch} aria-label="Search threads">
        <label>
          Status
          <select name="status" defaultValue={status}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Assistant
          {/* a select has no default value of its own: the chosen option is marked, and the
              select drawn again once the assistants are loaded */}
          <select name="assistant" key={`${assistant}-${assistants.data?.length ?? 0}`}>
            <option value="">any</option>
            {(assistants.data ?? []).map((a) => (
              <option key={a.assistant_id} value={a.assistant_id} selected={a.assistant_id === assistant}>
                {a.name || a.assistant_id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Metadata <input name="metadata" defaultValue={metadata} placeholder="key=value, …" />
        </label>
        <label>
          Thread id <input name="id" defaultValue={id} />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={list.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Threads</caption>
          <thead>
            <tr>
              <th scope="col">Thread</th>
              <th scope="col">Status</th>
              <th scope="col">Assistant</th>
              <th scope="col">First message</th>
              <th scope="col">Messages</th>
              <th scope="col">Metadata</th>
              <th scope="col">Updated</th>
              <th scope="col">Record</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t, index) => (
              <Boundary key={(t as Partial<Thread> | null)?.thread_id ?? index} fallback={(error) => <UnreadableRow thread={t} error={error} />}>
                <ThreadRowView thread={t} />
              </Boundary>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && rows.length === 0 && !list.error && <p class="muted">No threads.</p>}
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={offset === 0} onClick={() => go({ offset: Math.max(0, offset - PAGE) })}>
          Previous page
        </button>
        <button type="button" disabled={rows.length < PAGE} onClick={() => go({ offset: offset + PAGE })}>
          Next page
        </button>
      </nav>
    </>
  );
}

/** "1 message", "2 messages". */
export const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const messagesOf = (values: unknown) => messagesIn(values).messages;

const COLUMNS = 8;

/** A thread of the list, read field by field (threadRow): one holding something odd is marked, not fatal. */
function ThreadRowView({ thread }: { thread: unknown }) {
  const row = threadRow(thread);
  return (
    <tr class={row.problem ? 'unreadable' : undefined}>
      <td>
        {row.id ? (
          <a href={`/dashboard/threads/${encodeURIComponent(row.id)}`}>
            <code>{row.id}</code>
          </a>
        ) : (
          <span class="muted">no id</span>
        )}
      </td>
      <td>
        <Status value={row.status} />
        {row.problem && (
          <span class="tag problem" title={`Part of this thread could not be read: ${row.problem}`}>
            unreadable: {row.problem}
          </span>
        )}
      </td>
      <td>
        <AssistantName id={row.assistantId} />
      </td>
      <td class="first-message">{row.firstMessage}</td>
      <td>{row.messageCount ?? '?'}</td>
      <td class="wrap">{row.metadata}</td>
      <td>
        <Time iso={row.updatedAt} />
      </td>
      <td>
        <Raw value={thread} label="JSON" />
      </td>
    </tr>
  );
}

/** The last resort for a thread whose row still failed to draw: its id where it has one, and why. */
function UnreadableRow({ thread, error }: { thread: unknown; error: unknown }) {
  const id = (thread as { thread_id?: unknown } | null)?.thread_id;
  return (
    <tr class="unreadable">
      <td>
        {typeof id === 'string' ? (
          <a href={`/dashboard/threads/${encodeURIComponent(id)}`}>
            <code>{id}</code>
          </a>
        ) : (
          <span class="muted">no id</span>
        )}
      </td>
      <td colSpan={COLUMNS - 1}>
        <span class="tag problem">unreadable: this thread could not be shown ({failureText(error)})</span>
      </td>
    </tr>
  );
}

export function ThreadPage({ id }: { id: string }) {
  const thread = useLoad(
    () => agent().threads.get(id),
    [id],
    (t: Thread) => (t.status === 'busy' ? 500 : 5000),
  );
  const state = useLoad(() => agent().threads.getState(id), [id, thread.data?.updated_at]);
  const runs = useLoad(() => agent().runs.list(id, { limit: 20 }), [id, thread.data?.updated_at]);
  const hasHistory = hasOperation('POST /threads/{thread_id}/history');
  const history = useLoad(
    () => (hasHistory ? agent().threads.getHistory(id, { limit: 20 }) : Promise.resolve([] as ThreadState[])),
    [id, thread.data?.updated_at],
  );
  const [picked, setPicked] = useState<string | null>(null);
  const remove = useAction(async () => {
    await agent().threads.delete(id);
    navigate('/dashboard/threads');
  });
  const t = thread.data;
  const assistantId =
    (runs.data?.[0] as Run | undefined)?.assistant_id ?? (t?.metadata?.assistant_id as string | undefined) ?? (t?.metadata?.graph_id as string | undefined);
  // a thread whose record cannot be read does not refresh the rest through its updated_at
  const reloadAll = () => {
    thread.reload();
    if (!t) [state, runs, history].forEach((part) => part.reload());
  };
  // resuming from here: a run on the thread with the answer (or none, past a breakpoint), then a fresh look
  const resume = useAction(async (payload: { command?: { resume: unknown }; input?: null }) => {
    const client = agent();
    const run = await client.runs.create(id, assistantId!, payload);
    await client.runs.join(id, run.run_id);
    reloadAll();
  });
  // nothing to show but the answer while the first load runs, or for a thread that is not there
  if (!t && (!thread.error || statusOf(thread.error) === 404)) return <ErrorNotice error={thread.error} />;
  // without its record, the thread's latest run says whether it failed
  const failed = t ? t.status === 'error' : runs.data?.[0]?.status === 'error';
  const failedRun = failed ? runs.data?.find((r) => r.status === 'error') : undefined;
  // the state says why the thread stopped (a failed task's error, a breakpoint, an edit that superseded the failure)
  const stateSays = Boolean(assistantId && state.data && t && !stateErrorOf(state.data));
  return (
    <>
      <div class="page-head">
        <h1>
          Thread <code>{short(id)}</code> {t ? <Status value={t.status} /> : <span class="tag problem">record unreadable</span>}
        </h1>
        <div class="actions">
          {assistantId && (
            <a class="button" href={`/dashboard/assistants/${assistantId}?thread=${id}`}>
              Continue in chat
            </a>
          )}
          <button type="button" class="danger" onClick={() => confirm(`Delete thread ${id}?`) && remove.run()}>
            Delete
          </button>
        </div>
      </div>
      <ErrorNotice error={remove.error ?? resume.error} />
      {stateSays && state.data && t && (
        <Guarded what="The thread's pending work">
          <PendingInterrupts
            interrupts={interruptsOf(state.data)}
            pause={pauseOf(state.data, t.status)}
            failedRunHref={failedRun && `/dashboard/threads/${id}/runs/${failedRun.run_id}`}
            busy={resume.busy || t.status === 'busy'}
            onResume={(value) => resume.run({ command: { resume: value } })}
            onContinue={() => resume.run({ input: null })}
          />
        </Guarded>
      )}
      {/* where the state cannot say it, the failed run says why it failed */}
      {failedRun && !state.loading && !stateSays && <FailedRunError threadId={id} run={failedRun} />}
      <div class="columns">
        <div>
          <Section title="Messages">
            <Guarded what="The messages">
              <MessageList messages={messagesOf(state.data?.values ?? t?.values)} />
            </Guarded>
          </Section>
          <Section title="State">
            <Guarded what="The state">
              <StateView state={state.data} error={state.error} />
            </Guarded>
            <StateEditor threadId={id} onSaved={reloadAll} />
          </Section>
          <Section title="Runs">
            <Guarded what="The runs">
              <RunsTable runs={runs.data} error={runs.error} />
            </Guarded>
          </Section>
          <Section title="Thread">
            {!t && <ErrorNotice error={thread.error} />}
            <Guarded what="The thread's record">
              <dl class="fields">
                <Field label="Id">
                  <code>{id}</code>
                </Field>
                {t && (
                  <>
                    <Field label="Created">
                      <Time iso={t.created_at} />
                    </Field>
                    <Field label="Updated">
                      <Time iso={t.updated_at} />
                    </Field>
                    <Field label="Metadata">
                      <code>{JSON.stringify(t.metadata)}</code>
                    </Field>
                  </>
                )}
              </dl>
              {t && <Raw value={t} />}
            </Guarded>
          </Section>
        </div>
        <Section title="History">
          {!hasHistory ? (
            <NotAvailable what="Checkpoint history" />
          ) : (
            <Guarded what="The history">
              <ErrorNotice optional error={history.error} />
              {/* "no checkpoints" is not what a failed read says */}
              {(history.data || !history.error) && <History entries={history.data ?? []} picked={picked} onPick={setPicked} />}
              {picked && (
                <CheckpointState
                  threadId={id}
                  checkpointId={picked}
                  entry={history.data?.find((h) => h.checkpoint?.checkpoint_id === picked)}
                  history={history.data ?? []}
                  assistantId={assistantId}
                  onForked={reloadAll}
                />
              )}
            </Guarded>
          )}
        </Section>
      </div>
    </>
  );
}

/**
 * Why the thread's last run failed, from the run itself (a finished run's join answers its
 * error), for a thread whose state cannot be read to say it.
 */
function FailedRunError({ threadId, run }: { threadId: string; run: Run }) {
  const outcome = useLoad(() => agent().runs.join(threadId, run.run_id), [threadId, run.run_id]);
  const error = (outcome.data as { __error__?: { error?: unknown; message?: unknown } } | undefined)?.__error__;
  return (
    <div class="interrupt failed" role="alert" aria-label="The last run failed">
      <p>
        <strong>The last run failed.</strong>{' '}
        <a href={`/dashboard/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(run.run_id)}`}>See the run and its trace</a>
      </p>
      {error && <pre class="error-text">{[error.error, error.message].filter((part) => typeof part === 'string' && part).join(': ')}</pre>}
      <ErrorNotice error={outcome.error} />
    </div>
  );
}

/** Why the server could not compute a latest state at all (the spec's `state_error`), if it could not. */
const stateErrorOf = (state: ThreadState): string | undefined => {
  const reason = (state as { state_error?: unknown }).state_error;
  return typeof reason === 'string' ? reason : undefined;
};

function StateView({ state, error }: { state: ThreadState | undefined; error: unknown }) {
  if (error) return <ErrorNotice error={error} />;
  if (!state) return <p class="muted">Loading…</p>;
  const values = (state.values ?? {}) as Record<string, unknown>;
  const uncomputed = stateErrorOf(state);
  return (
    <>
      {uncomputed && (
        <p class="notice" role="status">
          The state could not be computed from the thread's checkpoints ({uncomputed}): these are its values as stored at its last change.
        </p>
      )}
      <dl class="fields">
        <Field label="Next">{state.next.length ? state.next.join(', ') : 'nothing (done)'}</Field>
        <Field label="Checkpoint">
          <code>{short(state.checkpoint?.checkpoint_id)}</code>
        </Field>
        {Object.entries(values).map(([k, v]) => (
          <Field key={k} label={k}>
            {k === 'messages' && Array.isArray(v) ? `${v.length} message${v.length === 1 ? '' : 's'}` : <code>{JSON.stringify(v)}</code>}
          </Field>
        ))}
      </dl>
      <Raw value={state} />
    </>
  );
}

/**
 * updateState from the page: values applied through the state's reducers, as if written by a
 * node (`as_node`; by default the node that ran last), making a new checkpoint.
 */
function StateEditor({ threadId, onSaved }: { threadId: string; onSaved: () => void }) {
  const [open, setOpen] = useState(false);
  const [json, setJson] = useState('{\n  \n}');
  const [asNode, setAsNode] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useAction(async () => {
    let values: unknown;
    try {
      values = JSON.parse(json);
    } catch (e) {
      setInvalid(`Not JSON: ${(e as Error).message}`);
      return;
    }
    await agent().threads.updateState(threadId, { values, asNode: asNode.trim() || undefined });
    setOpen(false);
    onSaved();
  });
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Edit state
      </button>
    );
  return (
    <form
      class="store-form"
      aria-label="Edit state"
      onSubmit={(e) => {
        e.preventDefault();
        setInvalid(null);
        save.run();
      }}
    >
      <div class="field">
        <label for="state-values">Values to write (JSON; each key goes through its reducer, e.g. messages are appended)</label>
        <textarea id="state-values" rows={5} value={json} aria-invalid={Boolean(invalid)} onInput={(e) => setJson((e.target as HTMLTextAreaElement).value)} />
      </div>
      <div class="field">
        <label for="state-as-node">As node (empty: the node that ran last)</label>
        <input id="state-as-node" value={asNode} onInput={(e) => setAsNode((e.target as HTMLInputElement).value)} />
      </div>
      {invalid && (
        <p class="error" role="alert">
          {invalid}
        </p>
      )}
      <ErrorNotice error={save.error} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={save.busy}>
          Update state
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function RunsTable({ runs, error }: { runs: Run[] | undefined; error: unknown }) {
  if (error) return <ErrorNotice error={error} />;
  if (!runs?.length) return <p class="muted">No runs.</p>;
  return (
    <div class="table-wrap">
      <table class="runs">
        <caption class="sr-only">Runs</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Status</th>
            <th scope="col">Assistant</th>
            <th scope="col">Created</th>
            <th scope="col">Record</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.run_id}>
              <td>
                <a href={`/dashboard/threads/${encodeURIComponent(r.thread_id)}/runs/${encodeURIComponent(r.run_id)}`}>
                  <code title={r.run_id}>{short(r.run_id)}</code>
                </a>
              </td>
              <td>
                <Status value={r.status} />
              </td>
              <td>
                <AssistantName id={r.assistant_id} />
              </td>
              <td>
                <Time iso={r.created_at} />
              </td>
              <td>
                <Raw value={r} label="JSON" />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function History({ entries, picked, onPick }: { entries: ThreadState[]; picked: string | null; onPick: (id: string) => void }) {
  if (entries.length === 0) return <p class="muted">No checkpoints.</p>;
  const { branch, branchesOff } = branchesOf(entries);
  const branched = new Set(branch.values()).size > 1;
  const stepOf = (id: string) => {
    const entry = entries.find((e) => e.checkpoint?.checkpoint_id === id);
    return `step ${String((entry?.metadata as { step?: unknown } | undefined)?.step ?? '?')}${branched ? `.${branch.get(id)}` : ''}`;
  };
  return (
    <ol class="history" aria-label="Checkpoints, newest first">
      {entries.map((h, index) => {
        // a checkpoint without its id (a mock's example) is listed but cannot be picked
        const id = h.checkpoint?.checkpoint_id ?? '';
        const meta = (h.metadata ?? {}) as Record<string, unknown>;
        const writes = Object.keys((meta.writes as Record<string, unknown> | null) ?? {});
        return (
          <li
            key={id || index}
            class={[id && id === picked ? 'picked' : '', branched ? `branch branch-${Math.min(branch.get(id) ?? 1, 4)}` : ''].join(' ').trim() || undefined}
          >
            <button type="button" onClick={() => onPick(id)} aria-pressed={id === picked} disabled={!id}>
              <span class="step">{id ? stepOf(id) : `step ${String(meta.step ?? '?')}`}</span>
              {branchesOff.has(id) && <span class="tag">branches off {stepOf(branchesOff.get(id)!)}</span>}
              <span>{String(meta.source ?? '')}</span>
              {writes.length > 0 && <span>wrote {writes.join(', ')}</span>}
              <span>{h.next.length ? `next ${h.next.join(', ')}` : 'end'}</span>
              <span>{count(messagesOf(h.values).length, 'message')}</span>
              <Time iso={h.created_at} />
            </button>
          </li>
        );
      })}
    </ol>
  );
}

function CheckpointState({
  threadId,
  checkpointId,
  entry,
  history,
  assistantId,
  onForked,
}: {
  threadId: string;
  checkpointId: string;
  entry?: ThreadState;
  /** The thread's history: the checkpoint after the picked one is read from it. */
  history: ThreadState[];
  assistantId?: string;
  onForked: () => void;
}) {
  const byId = hasOperation('GET /threads/{thread_id}/state/{checkpoint_id}');
  const state = useLoad(() => (byId ? agent().threads.getState(threadId, checkpointId) : Promise.resolve(entry!)), [threadId, checkpointId]);
  const [text, setText] = useState('');
  const [empty, setEmpty] = useState(false);
  const fork = useAction(async () => {
    const client = agent();
    const run = await client.runs.create(threadId, assistantId!, { input: { messages: [{ role: 'user', content: text }] }, checkpointId });
    await client.runs.join(threadId, run.run_id);
    setText('');
    onForked();
  });
  return (
    <div class="checkpoint" aria-label="State at the picked checkpoint" role="region">
      <h3>
        State at checkpoint <code>{short(checkpointId)}</code>
      </h3>
      <ErrorNotice optional error={state.error} />
      {entry && <NodeStep entry={entry} child={history.find((h) => h.parent_checkpoint?.checkpoint_id === checkpointId)} />}
      {state.data && (
        <>
          <MessageList messages={messagesOf(state.data.values)} label="Messages at this checkpoint" />
          <StateView state={state.data} error={null} />
        </>
      )}
      {assistantId ? (
        <form
          class="inline-form"
          aria-label="Fork from this checkpoint"
          onSubmit={(e) => {
            e.preventDefault();
            if (text.trim()) fork.run();
            else setEmpty(true);
          }}
        >
          <label for="fork-text">Fork: send from here</label>
          <input
            id="fork-text"
            value={text}
            aria-invalid={empty}
            aria-describedby={empty ? 'fork-text-error' : undefined}
            onInput={(e) => (setText((e.target as HTMLInputElement).value), setEmpty(false))}
          />
          <button type="submit" disabled={fork.busy}>
            Fork
          </button>
        </form>
      ) : null}
      {empty && (
        <p id="fork-text-error" class="error" role="alert">
          Type the message the fork sends from this checkpoint: a fork is a new run, and it starts with your message.
        </p>
      )}
      <ErrorNotice error={fork.error} />
      {assistantId && state.data && (
        <RerunFromCheckpoint threadId={threadId} checkpointId={checkpointId} state={state.data} assistantId={assistantId} onRan={onForked} />
      )}
    </div>
  );
}

/** The node whose write made a checkpoint (its metadata's `writes`), if one did. */
const writerOf = (state: ThreadState): string =>
  Object.keys(((state.metadata as { writes?: Record<string, unknown> } | null)?.writes ?? {}) as object)[0] ?? '';

/**
 * Studio's history work at a picked checkpoint: run its next nodes again as they are ("Re-run
 * from here": a run without input from that checkpoint), or first edit the state there, as
 * the node that wrote it, and re-run from the edit. Either way a new branch grows from the
 * checkpoint; what came after it before stays in the history.
 */
function RerunFromCheckpoint({
  threadId,
  checkpointId,
  state,
  assistantId,
  onRan,
}: {
  threadId: string;
  checkpointId: string;
  state: ThreadState;
  assistantId: string;
  onRan: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [json, setJson] = useState(() => JSON.stringify(state.values ?? {}, null, 2));
  const [asNode, setAsNode] = useState(() => writerOf(state));
  const [invalid, setInvalid] = useState<string | null>(null);
  const runFrom = async (from: string) => {
    const client = agent();
    const run = await client.runs.create(threadId, assistantId, { input: null, checkpointId: from });
    await client.runs.join(threadId, run.run_id);
    onRan();
  };
  const rerun = useAction(() => runFrom(checkpointId));
  const editAndRerun = useAction(async () => {
    let values: unknown;
    try {
      values = JSON.parse(json);
    } catch (e) {
      setInvalid(`Not JSON: ${(e as Error).message}`);
      return;
    }
    const written = (await agent().threads.updateState(threadId, { values, checkpointId, asNode: asNode.trim() || undefined })) as {
      checkpoint?: { checkpoint_id?: string };
      configurable?: { checkpoint_id?: string };
    };
    const edited = written.checkpoint?.checkpoint_id ?? written.configurable?.checkpoint_id;
    if (!edited) throw new Error('The server did not say which checkpoint the edit wrote.');
    setEditing(false);
    await runFrom(edited);
  });
  const busy = rerun.busy || editAndRerun.busy;
  return (
    <div class="rerun" role="group" aria-label="Re-run from this checkpoint">
      {state.next.length ? (
        <p class="muted">
          From here {state.next.join(', ')} {state.next.length === 1 ? 'runs' : 'run'} next.
        </p>
      ) : (
        <p class="muted">Nothing runs after this checkpoint: edit its state to go on from it.</p>
      )}
      <div class="buttons">
        {state.next.length > 0 && (
          <button type="button" disabled={busy} onClick={() => rerun.run()}>
            Re-run from here
          </button>
        )}
        {!editing && (
          <button type="button" disabled={busy} onClick={() => setEditing(true)}>
            Edit state here
          </button>
        )}
      </div>
      {editing && (
        <form
          class="store-form"
          aria-label="Edit the state at this checkpoint and re-run"
          onSubmit={(e) => {
            e.preventDefault();
            setInvalid(null);
            editAndRerun.run();
          }}
        >
          <div class="field">
            <label for="checkpoint-values">State at this checkpoint (JSON; each key goes through its reducer: a message with the same id is replaced)</label>
            <textarea
              id="checkpoint-values"
              rows={8}
              value={json}
              aria-invalid={Boolean(invalid)}
              onInput={(e) => setJson((e.target as HTMLTextAreaElement).value)}
            />
          </div>
          <div class="field">
            <label for="checkpoint-as-node">As node (the node that wrote this checkpoint keeps what runs next)</label>
            <input id="checkpoint-as-node" value={asNode} onInput={(e) => setAsNode((e.target as HTMLInputElement).value)} />
          </div>
          {invalid && (
            <p class="error" role="alert">
              {invalid}
            </p>
          )}
          <div class="buttons">
            <button type="submit" class="primary" disabled={busy}>
              Save and re-run
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <ErrorNotice error={rerun.error ?? editAndRerun.error} />
    </div>
  );
}
