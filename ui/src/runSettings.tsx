// Studio's per-run settings: the configurable values and context a run starts with (forms
// generated from the graph's config_schema / context_schema, or raw JSON) and its breakpoints
// (interrupt_before / interrupt_after, chosen per node). They go with every run the page starts
// (the chat, the input form, continuing past a breakpoint); the assistant is left as it is.
import { useState } from 'preact/hooks';
import { agent, hasOperation } from './api';
import { ErrorNotice, Section, useLoad } from './components';
import type { GraphData } from './graph';
import { SchemaForm, type JsonSchema } from './schemaForm';

type Values = Record<string, unknown>;

export interface RunSettings {
  configurable: Values;
  context: Values;
  interruptBefore: string[];
  interruptAfter: string[];
}

export const NO_SETTINGS: RunSettings = { configurable: {}, context: {}, interruptBefore: [], interruptAfter: [] };

/** What the settings add to a run's create body, in the SDK's names (only what is set). */
export function runOptions(s: RunSettings | undefined): {
  config?: { configurable: Values };
  context?: Values;
  interruptBefore?: string[];
  interruptAfter?: string[];
} {
  if (!s) return {};
  return {
    ...(Object.keys(s.configurable).length ? { config: { configurable: s.configurable } } : {}),
    ...(Object.keys(s.context).length ? { context: s.context } : {}),
    ...(s.interruptBefore.length ? { interruptBefore: s.interruptBefore } : {}),
    ...(s.interruptAfter.length ? { interruptAfter: s.interruptAfter } : {}),
  };
}

/** A schema worth a form: an object with properties. */
const formable = (schema: unknown): schema is JsonSchema =>
  Boolean(schema && typeof schema === 'object' && (schema as JsonSchema).properties && Object.keys((schema as JsonSchema).properties!).length);

const toggled = (list: string[], item: string, on: boolean) => (on ? [...new Set([...list, item])] : list.filter((i) => i !== item));

export function RunSettingsPanel({ assistantId, value, onChange }: { assistantId: string; value: RunSettings; onChange: (next: RunSettings) => void }) {
  const schemas = useLoad(() => agent().assistants.getSchemas(assistantId), [assistantId]);
  const hasGraph = hasOperation('GET /assistants/{assistant_id}/graph');
  const graph = useLoad(() => (hasGraph ? (agent().assistants.getGraph(assistantId) as Promise<GraphData>) : Promise.resolve(null)), [assistantId]);
  const nodes = (graph.data?.nodes ?? []).map((n) => String(n.id)).filter((id) => !id.startsWith('__'));
  const configSchema = schemas.data?.config_schema;
  const contextSchema = schemas.data?.context_schema;
  // in JS graphs the configurable schema is the context's: both get its form, as a graph may
  // read its settings from either (`runtime.context`, or `config.configurable` as before 1.0)
  const sameSchema = formable(configSchema) && JSON.stringify(contextSchema) === JSON.stringify(configSchema);
  const set = (patch: Partial<RunSettings>) => onChange({ ...value, ...patch });
  // what is in force, said as a person would: the keys set and the breakpoints chosen
  const active = [
    Object.keys(value.configurable).length ? `configurable ${Object.keys(value.configurable).join(', ')}` : '',
    Object.keys(value.context).length ? `context ${Object.keys(value.context).join(', ')}` : '',
    value.interruptBefore.length ? `pause before ${value.interruptBefore.join(', ')}` : '',
    value.interruptAfter.length ? `pause after ${value.interruptAfter.join(', ')}` : '',
  ].filter(Boolean);
  return (
    <Section title="Run settings">
      <p class="muted">
        For the runs this page starts (chat, input form, continue): the assistant is not changed.
        {active.length ? ` In force: ${active.join('; ')}.` : ''}
      </p>
      <ErrorNotice optional error={schemas.error ?? graph.error} />
      {nodes.length > 0 && (
        <fieldset class="breakpoints">
          <legend>Breakpoints</legend>
          <table>
            <caption class="sr-only">Pause the run before or after a node</caption>
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {nodes.map((node) => (
                <tr key={node}>
                  <th scope="row">
                    <code>{node}</code>
                  </th>
                  {(['interruptBefore', 'interruptAfter'] as const).map((when) => (
                    <td key={when}>
                      <input
                        type="checkbox"
                        aria-label={`Pause ${when === 'interruptBefore' ? 'before' : 'after'} ${node}`}
                        checked={value[when].includes(node)}
                        onChange={(e) => set({ [when]: toggled(value[when], node, (e.target as HTMLInputElement).checked) })}
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </fieldset>
      )}
      {/* a graph without a schema still takes values: the JSON way */}
      <SettingsBlock
        title="Context"
        schema={formable(contextSchema) ? contextSchema : undefined}
        value={value.context}
        onChange={(context) => set({ context })}
      />
      <SettingsBlock
        title="Configurable"
        schema={formable(configSchema) ? configSchema : undefined}
        note={sameSchema ? 'The same fields as the context, for a graph that reads them from config.configurable.' : undefined}
        collapsed={sameSchema}
        value={value.configurable}
        onChange={(configurable) => set({ configurable })}
      />
    </Section>
  );
}

/** One object of settings: its schema's form (when there is one) and the same as raw JSON. */
function SettingsBlock({
  title,
  schema,
  note,
  collapsed,
  value,
  onChange,
}: {
  title: string;
  schema?: JsonSchema;
  /** A line under the title. */
  note?: string;
  /** Its form folded away until opened (a second form of the same fields). */
  collapsed?: boolean;
  value: Values;
  onChange: (next: Values) => void;
}) {
  const id = `run-${title.toLowerCase()}`;
  const [json, setJson] = useState(() => (Object.keys(value).length ? JSON.stringify(value, null, 2) : ''));
  const [invalid, setInvalid] = useState<string | null>(null);
  // a folded form opens by itself when it holds values already (settings kept from before)
  const [openAtFirst] = useState(() => Object.keys(value).length > 0);
  // the form is drawn again when the JSON changed the value, so both say the same
  const [formKey, setFormKey] = useState(0);
  const fromJson = (text: string) => {
    setJson(text);
    if (!text.trim()) {
      setInvalid(null);
      onChange({});
      setFormKey((k) => k + 1);
      return;
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('a JSON object is needed');
      setInvalid(null);
      onChange(parsed as Values);
      setFormKey((k) => k + 1);
    } catch (e) {
      setInvalid(`Not used: ${(e as Error).message}`);
    }
  };
  const raw = (
    <div class="field">
      <label for={`${id}-json`}>{title} (JSON)</label>
      <textarea
        id={`${id}-json`}
        rows={3}
        value={json}
        placeholder="{}"
        aria-invalid={Boolean(invalid)}
        aria-describedby={invalid ? `${id}-json-error` : undefined}
        onInput={(e) => fromJson((e.target as HTMLTextAreaElement).value)}
      />
      {invalid && (
        <p class="field-error" id={`${id}-json-error`}>
          {invalid}
        </p>
      )}
    </div>
  );
  const form = schema && (
    <>
      <SchemaForm
        key={formKey}
        schema={schema}
        label={`Run ${title.toLowerCase()}`}
        submitLabel=""
        idPrefix={id}
        initial={value}
        onChange={(next) => {
          onChange(next);
          setJson(Object.keys(next).length ? JSON.stringify(next, null, 2) : '');
          setInvalid(null);
        }}
      />
      <details class="raw">
        <summary>{title} as JSON</summary>
        {raw}
      </details>
    </>
  );
  return (
    <fieldset class="run-settings-block">
      <legend>{title}</legend>
      {note && <p class="muted">{note}</p>}
      {!form ? (
        raw
      ) : collapsed ? (
        <details class="raw" open={openAtFirst}>
          <summary>{title} form</summary>
          {form}
        </details>
      ) : (
        form
      )}
    </fieldset>
  );
}
