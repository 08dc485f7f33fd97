// Managing assistants: create one for a graph; edit an assistant's context and configurable
// values in forms generated from its graph's context_schema / config_schema (each save is a
// new version); its versions, with "set latest" to go back to one; delete.
import type { Assistant, AssistantVersion } from '@langchain/langgraph-sdk';
import { useState } from 'preact/hooks';
import { agent } from '../api';
import { ConfirmButton, ErrorNotice, Section, Time, useAction, useLoad } from '../components';
import { navigate } from '../router';
import { SchemaForm, type JsonSchema } from '../schemaForm';

type Values = Record<string, unknown>;

/** A schema worth a form: an object with properties. */
const formable = (schema: unknown): schema is JsonSchema =>
  Boolean(schema && typeof schema === 'object' && (schema as JsonSchema).properties && Object.keys((schema as JsonSchema).properties!).length);

export function AssistantSettings({ assistant: a, onChanged }: { assistant: Assistant; onChanged: () => void }) {
  const schemas = useLoad(() => agent().assistants.getSchemas(a.assistant_id), [a.assistant_id]);
  const versions = useLoad(() => agent().assistants.getVersions(a.assistant_id, { limit: 20 }), [a.assistant_id, a.version]);
  const remove = useAction(async () => {
    await agent().assistants.delete(a.assistant_id);
    navigate('/dashboard/assistants');
  });
  const setLatest = useAction(async (version: number) => {
    await agent().assistants.setLatest(a.assistant_id, version);
    onChanged();
  });
  const save = async (patch: { context?: Values; config?: { configurable: Values } }) => {
    await agent().assistants.update(a.assistant_id, patch);
    onChanged();
  };
  const contextSchema = schemas.data?.context_schema;
  const configSchema = schemas.data?.config_schema;
  const sameSchema = JSON.stringify(contextSchema) === JSON.stringify(configSchema);
  return (
    <>
      <Section title="Context">
        <ErrorNotice optional error={schemas.error} />
        {formable(contextSchema) ? (
          <SchemaForm
            key={`context-${a.version}`}
            schema={contextSchema}
            label="Assistant context"
            submitLabel="Save context (new version)"
            initial={(a.context ?? {}) as Values}
            onSubmit={(body) => save({ context: body })}
          />
        ) : (
          <p class="muted">{schemas.loading ? 'Loading…' : 'The graph declares no context.'}</p>
        )}
      </Section>
      {/* in JS graphs the configurable schema is the context's: one form says it all */}
      {formable(configSchema) && !sameSchema && (
        <Section title="Configurable">
          <SchemaForm
            key={`config-${a.version}`}
            schema={configSchema}
            label="Assistant configurable"
            submitLabel="Save configurable (new version)"
            initial={(a.config?.configurable ?? {}) as Values}
            onSubmit={(body) => save({ config: { configurable: body } })}
          />
        </Section>
      )}
      <Section
        title="Versions"
        actions={<ConfirmButton label="Delete assistant" question={`Delete ${a.name || a.assistant_id}?`} onConfirm={() => remove.run()} busy={remove.busy} />}
      >
        <ErrorNotice error={versions.error ?? setLatest.error ?? remove.error} />
        <ol class="versions" aria-label="Versions, newest first">
          {(versions.data ?? []).map((v: AssistantVersion) => (
            <li key={v.version}>
              <strong>v{v.version}</strong>
              {v.version === a.version && <span class="tag">latest</span>} <Time iso={v.created_at} />
              <code class="wrap">{JSON.stringify(v.context ?? {})}</code>
              {v.version !== a.version && (
                <button type="button" disabled={setLatest.busy} onClick={() => setLatest.run(v.version)}>
                  Set v{v.version} latest
                </button>
              )}
            </li>
          ))}
        </ol>
      </Section>
    </>
  );
}

/** A new assistant for one of the graphs the server has (the graphs' own assistants tell which). */
export function NewAssistant({ graphs, onCreated }: { graphs: string[]; onCreated: (a: Assistant) => void }) {
  const [graphId, setGraphId] = useState('');
  const [name, setName] = useState('');
  const create = useAction(async () => {
    onCreated(await agent().assistants.create({ graphId, name: name.trim() || undefined }));
  });
  return (
    <form
      class="filters"
      aria-label="New assistant"
      onSubmit={(e) => {
        e.preventDefault();
        if (graphId) create.run();
      }}
    >
      <label>
        Graph
        <select value={graphId} onChange={(e) => setGraphId((e.target as HTMLSelectElement).value)}>
          <option value="">choose…</option>
          {graphs.map((g) => (
            <option key={g}>{g}</option>
          ))}
        </select>
      </label>
      <label>
        Name <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" disabled={create.busy || !graphId}>
        Create assistant
      </button>
      <ErrorNotice error={create.error} />
    </form>
  );
}
