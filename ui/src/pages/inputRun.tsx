// Studio's way to run a graph whose input is not a chat: a form generated from the graph's
// input schema. Sending it starts a run on a new thread and waits for it; the page shows the
// run's output values and links to the thread. A graph that takes only `messages` has the
// chat alone; one that takes no `messages` has this form alone.
import type { ThreadState } from '@langchain/langgraph-sdk';
import { useState } from 'preact/hooks';
import { agent } from '../api';
import { ErrorNotice, Section, short, useAction } from '../components';
import { SchemaForm, type JsonSchema } from '../schemaForm';
import { runOptions, type RunSettings } from '../runSettings';

type Values = Record<string, unknown>;

/** Fields of the input other than the chat's `messages`: a form is worth showing for those. */
export const formFieldsOf = (schema: unknown): string[] =>
  Object.keys((schema as JsonSchema | null | undefined)?.properties ?? {}).filter((k) => k !== 'messages');

/** An input schema that names its fields, none of them `messages`: the graph is not a chat. */
export const notAChat = (schema: unknown): boolean => {
  const fields = Object.keys((schema as JsonSchema | null | undefined)?.properties ?? {});
  return fields.length > 0 && !fields.includes('messages');
};

export function InputRun({
  assistantId,
  inputSchema,
  settings,
  onSettled,
}: {
  assistantId: string;
  inputSchema: JsonSchema | null | undefined;
  settings?: RunSettings;
  onSettled?: (state: ThreadState) => void;
}) {
  const [result, setResult] = useState<{ threadId: string; state: ThreadState } | null>(null);
  const [json, setJson] = useState('');
  const [invalid, setInvalid] = useState<string | null>(null);
  const fromJson = useAction(async () => {
    let input: unknown;
    try {
      input = JSON.parse(json);
    } catch (e) {
      setInvalid(`Not JSON: ${(e as Error).message}`);
      return;
    }
    await run(input as Values);
  });
  if (!inputSchema || formFieldsOf(inputSchema).length === 0) return null;
  const run = async (input: Values) => {
    const client = agent();
    const thread = await client.threads.create({ metadata: { source: 'agentplane dashboard' } });
    await client.runs.wait(thread.thread_id, assistantId, { input, ...runOptions(settings) });
    const state = await client.threads.getState(thread.thread_id);
    setResult({ threadId: thread.thread_id, state });
    onSettled?.(state);
  };
  return (
    <Section title="Run with input">
      <SchemaForm key={assistantId} schema={inputSchema} label="Graph input" submitLabel="Run" onSubmit={run} />
      <details class="raw">
        <summary>Input as JSON</summary>
        <form
          class="store-form"
          aria-label="Graph input as JSON"
          onSubmit={(e) => {
            e.preventDefault();
            setInvalid(null);
            fromJson.run();
          }}
        >
          <div class="field">
            <label for="input-json">Input (JSON, sent as it is)</label>
            <textarea id="input-json" rows={4} value={json} aria-invalid={Boolean(invalid)} onInput={(e) => setJson((e.target as HTMLTextAreaElement).value)} />
          </div>
          {invalid && (
            <p class="error" role="alert">
              {invalid}
            </p>
          )}
          <ErrorNotice error={fromJson.error} />
          <button type="submit" disabled={fromJson.busy}>
            Run with this input
          </button>
        </form>
      </details>
      {result && (
        <div class="run-output" role="region" aria-label="Run output">
          <p>
            Ran on thread <a href={`/dashboard/threads/${result.threadId}`}>{short(result.threadId)}</a>
            {result.state.next.length ? ` · stopped before ${result.state.next.join(', ')}` : ''}
          </p>
          <pre>{JSON.stringify(result.state.values, null, 2)}</pre>
        </div>
      )}
    </Section>
  );
}
