// What a span carried, read from its OpenTelemetry GenAI attributes, as LangSmith shows a
// run: a model call's messages in and out (each tool call it asked for with its arguments,
// each tool answer), a tool call's arguments and result, a node's input and output. The
// attributes hold JSON text (the conventions' message shape: a role and its parts); text
// that does not parse is shown as it is.
import type { TraceSpan } from './contract';

type Part =
  | { type: 'text'; content?: string }
  | { type: 'tool_call'; id?: string; name?: string; arguments?: unknown }
  | { type: 'tool_call_response'; id?: string; response?: unknown }
  | { type: string; [key: string]: unknown };

interface GenAiMessage {
  role?: string;
  parts?: Part[];
}

const parsed = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function PartView({ part }: { part: Part }) {
  if (part.type === 'text') return <p class="part-text">{String((part as { content?: string }).content ?? '')}</p>;
  if (part.type === 'tool_call') {
    const call = part as { id?: string; name?: string; arguments?: unknown };
    return (
      <div class="part-tool-call" aria-label={`Tool call ${call.name ?? ''}`}>
        <span class="tag">tool call</span> <code>{call.name}</code>
        {call.id && <span class="muted"> · {call.id}</span>}
        <pre>{shown(parsed(call.arguments))}</pre>
      </div>
    );
  }
  if (part.type === 'tool_call_response') {
    const answer = part as { id?: string; response?: unknown };
    return (
      <div class="part-tool-response">
        <span class="tag">tool answer</span>
        {answer.id && <span class="muted"> {answer.id}</span>}
        <pre>{shown(answer.response)}</pre>
      </div>
    );
  }
  return <pre>{shown(part)}</pre>;
}

function Messages({ label, value }: { label: string; value: unknown }) {
  const messages = parsed(value);
  if (!Array.isArray(messages)) return <pre aria-label={label}>{shown(messages)}</pre>;
  return (
    <ol class="span-messages" aria-label={label}>
      {(messages as GenAiMessage[]).map((m, n) => (
        <li key={n} class={`span-message role-${m.role ?? 'unknown'}`}>
          <span class="span-role">{m.role}</span>
          {(m.parts ?? []).map((part, i) => (
            <PartView key={i} part={part} />
          ))}
        </li>
      ))}
    </ol>
  );
}

/** A JSON value under its label; `folded`: closed until asked for (a node's whole state is long). */
function Json({ label, value, folded }: { label: string; value: unknown; folded?: boolean }) {
  if (folded)
    return (
      <details class="span-json">
        <summary class="span-role">{label}</summary>
        <pre>{shown(parsed(value))}</pre>
      </details>
    );
  return (
    <div class="span-json">
      <span class="span-role">{label}</span>
      <pre>{shown(parsed(value))}</pre>
    </div>
  );
}

/** The content of a span worth reading on the page, where its attributes carry it. */
export function SpanContent({ span }: { span: TraceSpan }) {
  const a = span.attributes as Record<string, unknown>;
  const blocks = [
    a['gen_ai.input.messages'] !== undefined && <Messages key="in" label={`Messages into ${span.name}`} value={a['gen_ai.input.messages']} />,
    a['gen_ai.output.messages'] !== undefined && <Messages key="out" label={`Messages out of ${span.name}`} value={a['gen_ai.output.messages']} />,
    a['gen_ai.tool.call.arguments'] !== undefined && <Json key="args" label="arguments" value={a['gen_ai.tool.call.arguments']} />,
    a['gen_ai.tool.call.result'] !== undefined && <Json key="result" label="result" value={a['gen_ai.tool.call.result']} />,
    // a node's (and the run's) input and output, as OpenInference names them
    a['input.value'] !== undefined && <Json key="node-in" label="input" value={a['input.value']} folded />,
    a['output.value'] !== undefined && <Json key="node-out" label="output" value={a['output.value']} folded />,
    a['langgraph.interrupt.value'] !== undefined && <Json key="interrupt" label="interrupt" value={a['langgraph.interrupt.value']} />,
  ].filter(Boolean);
  if (!blocks.length) return null;
  return <div class="span-content">{blocks}</div>;
}
