// Agent server: assistants, each with its graph, a chat panel, its A2A agent card and a
// send-message box.
import type { Assistant, ThreadState } from '@langchain/langgraph-sdk';
import { useState } from 'preact/hooks';
import { agent, call, hasOperation } from '../api';
import { ChatPanel } from '../chat';
import { ErrorNotice, Field, NotAvailable, Raw, Section, Time, useAction, useLoad } from '../components';
import { GraphView, type GraphMarks } from '../graphView';
import { interruptsOf, pauseOf } from '../interrupts';
import { NO_SETTINGS, RunSettingsPanel } from '../runSettings';
import type { GraphData } from '../graph';
import { navigate } from '../router';
import { AgentCard } from './agentCard';
import { AssistantMetrics } from './assistantMetrics';
import { AssistantSettings, NewAssistant } from './assistantSettings';
import { InputRun, notAChat } from './inputRun';
import type { JsonSchema } from '../schemaForm';

export function AssistantsPage() {
  const list = useLoad(() => agent().assistants.search({ limit: 100 }), []);
  const graphs = [...new Set((list.data ?? []).map((a) => a.graph_id))].sort();
  return (
    <>
      <h1>Assistants</h1>
      <NewAssistant graphs={graphs} onCreated={(a) => navigate(`/dashboard/assistants/${a.assistant_id}`)} />
      <ErrorNotice error={list.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Assistants</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Graph</th>
              <th scope="col">Id</th>
              <th scope="col">Updated</th>
              <th scope="col">Record</th>
            </tr>
          </thead>
          <tbody>
            {(list.data ?? []).map((a) => (
              <tr key={a.assistant_id}>
                <td>
                  <a href={`/dashboard/assistants/${a.assistant_id}`}>{a.name || a.assistant_id}</a>
                </td>
                <td>
                  <code>{a.graph_id}</code>
                </td>
                <td>
                  <code>{a.assistant_id}</code>
                </td>
                <td>
                  <Time iso={a.updated_at} />
                </td>
                <td>
                  <Raw value={a} label="JSON" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

export function AssistantPage({ id, query }: { id: string; query: URLSearchParams }) {
  const assistant = useLoad(() => agent().assistants.get(id), [id]);
  // the nodes the chat's run is executing now, highlighted in the graph
  const [runningNodes, setRunningNodes] = useState<string[]>([]);
  // where the chat's thread stopped (paused, failed), marked in the graph too
  const [stopped, setStopped] = useState<GraphMarks>({});
  const [settings, setSettings] = useState(NO_SETTINGS);
  // each run that ends refreshes the metrics, a resume's included
  const [runsEnded, setRunsEnded] = useState(0);
  const onSettled = (state: ThreadState | null) => {
    setStopped(marksOf(state));
    setRunsEnded((n) => n + 1);
  };
  const schemas = useLoad(() => agent().assistants.getSchemas(id), [id]);
  const inputSchema = schemas.data?.input_schema as JsonSchema | null | undefined;
  const a = assistant.data as Assistant | undefined;
  if (!a) return <ErrorNotice error={assistant.error} />;
  return (
    <>
      <h1>
        {a.name || a.assistant_id} <span class="muted">graph {a.graph_id}</span>
      </h1>
      <div class="columns">
        <div>
          <Section title="Graph">
            <AssistantGraph id={id} running={runningNodes} paused={stopped.paused} failed={stopped.failed} />
          </Section>
          <Section title="Details">
            <dl class="fields">
              <Field label="Id">
                <code>{a.assistant_id}</code>
              </Field>
              <Field label="Graph">
                <code>{a.graph_id}</code>
              </Field>
              <Field label="Version">{String(a.version ?? '')}</Field>
              <Field label="Description">{(a as { description?: string }).description}</Field>
              <Field label="Created">
                <Time iso={a.created_at} />
              </Field>
              <Field label="Updated">
                <Time iso={a.updated_at} />
              </Field>
            </dl>
            <Raw value={a} />
          </Section>
        </div>
        <div>
          <InputRun assistantId={id} inputSchema={inputSchema} settings={settings} onSettled={onSettled} />
          {!notAChat(inputSchema) && (
            <Section title="Chat">
              <ChatPanel
                assistantId={id}
                threadId={query.get('thread') ?? undefined}
                key={query.get('thread') ?? ''}
                onRunningNodes={setRunningNodes}
                settings={settings}
                onSettled={onSettled}
              />
            </Section>
          )}
          <RunSettingsPanel assistantId={id} value={settings} onChange={setSettings} />
          <AssistantMetrics id={a.assistant_id} refresh={runsEnded} />
        </div>
      </div>
      <div class="columns">
        <AssistantSettings assistant={a} onChanged={assistant.reload} />
      </div>
      <div class="columns">
        <Section title="A2A agent card">
          <AgentCard id={id} />
        </Section>
        <Section title="A2A message">
          <A2ASend id={id} />
        </Section>
      </div>
    </>
  );
}

/** Where a thread stopped, for the graph: the nodes it waits at, the nodes that failed. */
function marksOf(state: ThreadState | null): GraphMarks {
  if (!state) return {};
  const asking = (state.tasks ?? []).filter((t) => (t.interrupts ?? []).length).map((t) => t.name);
  const pause = pauseOf(state);
  if (interruptsOf(state).length) return { paused: asking };
  if (pause?.kind === 'failed') return { failed: pause.nodes };
  if (pause) return { paused: pause.nodes };
  return {};
}

function AssistantGraph({ id, running, paused, failed }: { id: string } & GraphMarks) {
  const available = hasOperation('GET /assistants/{assistant_id}/graph');
  const graph = useLoad(() => (available ? (agent().assistants.getGraph(id) as Promise<GraphData>) : Promise.resolve(null)), [id]);
  if (!available) return <NotAvailable what="The graph view" />;
  if (graph.error) return <ErrorNotice optional error={graph.error} />;
  if (!graph.data) return <p class="muted">Loading…</p>;
  return (
    <>
      <GraphView graph={graph.data} running={running} paused={paused} failed={failed} />
      <Raw value={graph.data} />
    </>
  );
}

/** Text of an A2A result: a Message's parts, or a Task's status message and artifacts. */
function a2aText(result: any): string {
  const parts = (list: any[] | undefined) => (list ?? []).filter((p) => p.kind === 'text').map((p) => p.text);
  if (!result) return '';
  if (result.kind === 'message') return parts(result.parts).join('\n');
  // a task carries its answer both as the final status message and as an artifact: said once
  return [...new Set([...parts(result.status?.message?.parts), ...(result.artifacts ?? []).flatMap((a: any) => parts(a.parts))])].join('\n');
}

function A2ASend({ id }: { id: string }) {
  const [text, setText] = useState('');
  const [reply, setReply] = useState<any>(null);
  const send = useAction(async () => {
    const body = {
      jsonrpc: '2.0',
      id: Date.now(),
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text }] } },
    };
    setReply(await call('POST', `/a2a/${encodeURIComponent(id)}`, body));
  });
  return (
    <>
      <form
        class="inline-form"
        aria-label="Send an A2A message"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim()) send.run();
        }}
      >
        <label for="a2a-text">Text to send</label>
        <input id="a2a-text" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={send.busy}>
          Send (message/send)
        </button>
      </form>
      <ErrorNotice error={send.error} />
      {reply && (
        <div class="a2a-reply">
          {reply.error ? (
            <p class="error">
              JSON-RPC error {reply.error.code}: {reply.error.message}
            </p>
          ) : (
            <>
              <p>
                <strong>{reply.result?.kind === 'task' ? `Task ${reply.result.status?.state}` : 'Reply'}:</strong> {a2aText(reply.result)}
              </p>
            </>
          )}
          <Raw value={reply} />
        </div>
      )}
    </>
  );
}
