// A run's page: what the run did inside its nodes (its trace as a timeline: nodes, model
// calls, tool calls with durations and errors), its stream events and the thread's final
// state, side by side. The trace is the server's own record (GET .../runs/{id}/trace), so
// no collector is needed to see it.
import { call, agent, hasOperation } from '../api';
import { ErrorNotice, NotAvailable, Raw, Section, Status, Time, short, useLoad } from '../components';
import type { TraceSpan } from '../contract';
import { AssistantName } from '../assistantName';
import { SpanContent } from '../spanContent';

const ms = (value: number) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(value < 10 ? 1 : 0)} ms`);

/** Spans in tree order (each after its parent, siblings by start), with their depth. */
function inTreeOrder(spans: TraceSpan[]): Array<{ span: TraceSpan; depth: number }> {
  const children = new Map<string | null, TraceSpan[]>();
  const ids = new Set(spans.map((s) => s.span_id));
  for (const span of spans) {
    const parent = span.parent_span_id && ids.has(span.parent_span_id) ? span.parent_span_id : null;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const out: Array<{ span: TraceSpan; depth: number }> = [];
  const walk = (parent: string | null, depth: number) => {
    for (const span of (children.get(parent) ?? []).sort((a, b) => a.start_time.localeCompare(b.start_time))) {
      out.push({ span, depth });
      walk(span.span_id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

function TraceTimeline({ spans }: { spans: TraceSpan[] }) {
  if (!spans.length) return <p class="muted">No trace recorded for this run (it has not ended yet).</p>;
  const start = Math.min(...spans.map((s) => Date.parse(s.start_time)));
  const total = Math.max(1, Math.max(...spans.map((s) => Date.parse(s.end_time))) - start);
  return (
    <ol class="trace" aria-label="Trace">
      {inTreeOrder(spans).map(({ span, depth }) => {
        const offset = ((Date.parse(span.start_time) - start) / total) * 100;
        const width = Math.max(0.5, (span.duration_ms / total) * 100);
        return (
          <li
            key={span.span_id}
            class={`span span-${span.kind}${span.status === 'error' ? ' span-error' : ''}`}
            data-kind={span.kind}
            style={{ paddingLeft: `${depth * 14}px` }}
          >
            <div class="span-label">
              <span class="span-kind">{span.kind}</span> <strong class="span-name">{span.name}</strong>{' '}
              <span class="span-duration">{ms(span.duration_ms)}</span>
              {span.attributes['langgraph.step'] !== undefined && <span class="muted"> · step {String(span.attributes['langgraph.step'])}</span>}
              {span.attributes['gen_ai.usage.input_tokens'] !== undefined && (
                <span class="muted">
                  {' '}
                  · {String(span.attributes['gen_ai.usage.input_tokens'])} in / {String(span.attributes['gen_ai.usage.output_tokens'] ?? '?')} out tokens
                </span>
              )}
            </div>
            <div class="span-track" aria-hidden="true">
              <div class="span-bar" style={{ marginLeft: `${offset}%`, width: `${Math.min(width, 100 - offset)}%` }} />
            </div>
            {span.error && <p class="span-error-text">{span.error}</p>}
            {span.stacktrace && (
              <details class="span-stack" open={span.kind === 'node'}>
                <summary>Stack trace</summary>
                <pre class="stack">{span.stacktrace}</pre>
              </details>
            )}
            <SpanContent span={span} />
            <Raw value={span.attributes} label="Attributes" />
          </li>
        );
      })}
    </ol>
  );
}

/**
 * What an event is: its SSE name, or for a run of the thread protocol (whose log keeps every
 * event under `protocol`) the protocol event's method (values, messages, lifecycle…) and node.
 */
export function eventKind(event: { event: string; data: unknown }): { kind: string; via?: string } {
  const stored = event.data as { method?: unknown; params?: { node?: unknown } } | null;
  if (event.event === 'protocol' && stored && typeof stored.method === 'string')
    return { kind: typeof stored.params?.node === 'string' ? `${stored.method} · ${stored.params.node}` : stored.method, via: 'protocol' };
  return { kind: event.event };
}

async function streamEvents(threadId: string, runId: string): Promise<Array<{ event: string; data: unknown }>> {
  const events: Array<{ event: string; data: unknown }> = [];
  for await (const part of agent().runs.joinStream(threadId, runId)) events.push({ event: part.event, data: part.data });
  return events;
}

export function RunPage({ threadId, runId }: { threadId: string; runId: string }) {
  const run = useLoad(() => agent().runs.get(threadId, runId), [threadId, runId]);
  const trace = useLoad(
    () => call<TraceSpan[]>('GET', `/threads/${encodeURIComponent(threadId)}/runs/${encodeURIComponent(runId)}/trace`),
    [threadId, runId, run.data?.status],
  );
  const events = useLoad(() => streamEvents(threadId, runId), [threadId, runId, run.data?.status]);
  const state = useLoad(() => agent().threads.getState(threadId), [threadId, run.data?.status]);
  return (
    <>
      <p>
        <a href={`/dashboard/threads/${encodeURIComponent(threadId)}`}>← Thread {short(threadId)}</a>
      </p>
      <h1>
        Run <code title={runId}>{short(runId)}</code> {run.data && <Status value={run.data.status} />}
      </h1>
      {run.error && <ErrorNotice error={run.error} />}
      {run.data && (
        <p class="muted">
          Assistant <AssistantName id={run.data.assistant_id} /> · created <Time iso={run.data.created_at} /> · updated <Time iso={run.data.updated_at} />
        </p>
      )}
      <Section title="Trace">
        {!hasOperation('GET /threads/{thread_id}/runs/{run_id}/trace') ? (
          <NotAvailable what="The trace" />
        ) : trace.error ? (
          <ErrorNotice error={trace.error} />
        ) : (
          <TraceTimeline spans={trace.data ?? []} />
        )}
      </Section>
      <div class="columns">
        <Section title="Stream events">
          {events.error ? (
            <ErrorNotice error={events.error} />
          ) : (
            <ol class="events" aria-label="Stream events">
              {(events.data ?? []).map((e, i) => {
                const { kind, via } = eventKind(e);
                return (
                  <li key={i} data-event={kind}>
                    <code class="event-kind">{kind}</code>
                    {via && <span class="tag">{via}</span>} <Raw value={e.data} label="Data" />
                  </li>
                );
              })}
            </ol>
          )}
        </Section>
        <Section title="Final state">
          {state.error ? <ErrorNotice error={state.error} /> : state.data ? <Raw value={state.data.values} label="Values" /> : <p class="muted">Loading…</p>}
        </Section>
      </div>
    </>
  );
}
