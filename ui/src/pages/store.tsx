// Agent server: the long-term memory store — its namespaces, the items under one (or all),
// search (by text query when the store has an index, always by key/value filter), and an
// item's value edited as JSON, created or deleted.
import type { Item } from '@langchain/langgraph-sdk';
import { useState } from 'preact/hooks';
import { agent, hasOperation } from '../api';
import { ConfirmButton, ErrorNotice, NotAvailable, Section, Time, useAction, useLoad } from '../components';
import { navigate } from '../router';

/** `a/b/c` ⇄ ["a", "b", "c"]: how a namespace is typed and shown. */
const parseNamespace = (text: string) =>
  text
    .split('/')
    .map((p) => p.trim())
    .filter(Boolean);
const showNamespace = (ns: string[]) => ns.join('/');

export function StorePage({ query }: { query: URLSearchParams }) {
  const namespace = query.get('namespace') ?? '';
  const text = query.get('q') ?? '';
  const go = (next: { namespace?: string; q?: string }) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ namespace, q: text, ...next })) if (v) params.set(k, v);
    navigate(`/dashboard/store${params.size ? `?${params}` : ''}`);
  };
  if (!hasOperation('POST /store/items/search')) return <NotAvailable what="The store" />;
  return (
    <>
      <h1>Store</h1>
      <div class="columns store">
        <Section title="Namespaces">
          <Namespaces picked={namespace} onPick={(ns) => go({ namespace: ns })} />
        </Section>
        <div>
          <Section title="Items">
            <form
              class="filters"
              aria-label="Search items"
              onSubmit={(e) => {
                e.preventDefault();
                const form = new FormData(e.target as HTMLFormElement);
                go({ namespace: String(form.get('namespace') ?? ''), q: String(form.get('q') ?? '') });
              }}
            >
              <label>
                Namespace prefix <input name="namespace" defaultValue={namespace} placeholder="users/alice" key={namespace} />
              </label>
              <label>
                Search <input name="q" defaultValue={text} placeholder="text, or key=value" key={text} />
              </label>
              <button type="submit">Search</button>
            </form>
            <Items namespace={parseNamespace(namespace)} text={text} />
          </Section>
          <Section title="New item">
            <ItemForm namespace={namespace} onSaved={(ns) => go({ namespace: ns, q: '' })} />
          </Section>
        </div>
      </div>
    </>
  );
}

function Namespaces({ picked, onPick }: { picked: string; onPick: (ns: string) => void }) {
  const list = useLoad(() => agent().store.listNamespaces({ limit: 100 }), [], 5000);
  if (list.error) return <ErrorNotice error={list.error} />;
  const namespaces = list.data?.namespaces ?? [];
  if (namespaces.length === 0) return <p class="muted">{list.loading ? 'Loading…' : 'No namespaces yet.'}</p>;
  return (
    <ul class="namespaces" aria-label="Namespaces">
      <li>
        <button type="button" aria-pressed={picked === ''} onClick={() => onPick('')}>
          (all)
        </button>
      </li>
      {namespaces.map((ns) => (
        <li key={showNamespace(ns)}>
          <button type="button" aria-pressed={picked === showNamespace(ns)} onClick={() => onPick(showNamespace(ns))}>
            {showNamespace(ns)}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** `key=value, …` is a filter on the value's fields; anything else is a text query. */
function searchOf(text: string): { query?: string; filter?: Record<string, unknown> } {
  if (!text.trim()) return {};
  const pairs = text.split(',').map((p) => p.split('='));
  if (pairs.every((p) => p.length === 2 && p[0].trim())) return { filter: Object.fromEntries(pairs.map(([k, v]) => [k.trim(), v.trim()])) };
  return { query: text.trim() };
}

function Items({ namespace, text }: { namespace: string[]; text: string }) {
  const [tick, setTick] = useState(0);
  const items = useLoad(() => agent().store.searchItems(namespace, { limit: 50, ...searchOf(text) }), [showNamespace(namespace), text, tick]);
  if (items.error) return <ErrorNotice error={items.error} />;
  const list = items.data?.items ?? [];
  if (list.length === 0) return <p class="muted">{items.loading ? 'Loading…' : 'No items found.'}</p>;
  return (
    <ol class="store-items" aria-label="Items found">
      {list.map((item) => (
        <StoreItem key={`${showNamespace(item.namespace)}/${item.key}`} item={item} onChanged={() => setTick((t) => t + 1)} />
      ))}
    </ol>
  );
}

function StoreItem({ item, onChanged }: { item: Item & { score?: number | null }; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const remove = useAction(async () => {
    await agent().store.deleteItem(item.namespace, item.key);
    onChanged();
  });
  return (
    <li class="store-item">
      <div class="section-head">
        <h3>
          <code>{showNamespace(item.namespace)}</code> / <code>{item.key}</code>
        </h3>
        <div class="actions">
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
            {editing ? 'Close' : 'Edit'}
          </button>
          <ConfirmButton label="Delete" question={`Delete ${item.key}?`} onConfirm={() => remove.run()} busy={remove.busy} />
        </div>
      </div>
      <p class="muted">
        updated <Time iso={String((item as { updated_at?: string }).updated_at ?? item.updatedAt ?? '')} />
        {typeof item.score === 'number' ? ` · score ${item.score.toFixed(3)}` : ''}
      </p>
      {editing ? (
        <ItemForm
          namespace={showNamespace(item.namespace)}
          itemKey={item.key}
          value={item.value}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
        />
      ) : (
        <pre class="value">{JSON.stringify(item.value, null, 2)}</pre>
      )}
      <ErrorNotice error={remove.error} />
    </li>
  );
}

/** Creates an item, or (with `itemKey`) replaces the value of one. */
function ItemForm({
  namespace,
  itemKey,
  value,
  onSaved,
}: {
  namespace: string;
  itemKey?: string;
  value?: Record<string, unknown>;
  onSaved: (namespace: string) => void;
}) {
  const prefix = itemKey ? `item-${namespace}-${itemKey}`.replace(/[^\w-]/g, '_') : 'new-item';
  const [ns, setNs] = useState(namespace);
  const [key, setKey] = useState(itemKey ?? '');
  const [json, setJson] = useState(value ? JSON.stringify(value, null, 2) : '{\n  \n}');
  const [invalid, setInvalid] = useState<string | null>(null);
  const save = useAction(async () => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch (e) {
      setInvalid(`Not JSON: ${(e as Error).message}`);
      return;
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      setInvalid('The value is a JSON object ({ … }).');
      return;
    }
    await agent().store.putItem(parseNamespace(ns), key.trim(), parsed as Record<string, unknown>);
    onSaved(showNamespace(parseNamespace(ns)));
  });
  return (
    <form
      class="store-form"
      aria-label={itemKey ? `Edit ${itemKey}` : 'New item'}
      onSubmit={(e) => {
        e.preventDefault();
        setInvalid(null);
        save.run();
      }}
    >
      <div class="field">
        <label for={`${prefix}-namespace`}>Namespace</label>
        <input
          id={`${prefix}-namespace`}
          value={ns}
          readOnly={Boolean(itemKey)}
          placeholder="users/alice"
          onInput={(e) => setNs((e.target as HTMLInputElement).value)}
        />
      </div>
      <div class="field">
        <label for={`${prefix}-key`}>Key</label>
        <input id={`${prefix}-key`} value={key} readOnly={Boolean(itemKey)} onInput={(e) => setKey((e.target as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for={`${prefix}-value`}>Value (JSON object)</label>
        <textarea
          id={`${prefix}-value`}
          rows={5}
          value={json}
          aria-invalid={Boolean(invalid)}
          onInput={(e) => setJson((e.target as HTMLTextAreaElement).value)}
        />
      </div>
      {invalid && (
        <p class="error" role="alert">
          {invalid}
        </p>
      )}
      <ErrorNotice error={save.error} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={save.busy || !key.trim() || !ns.trim()}>
          {itemKey ? 'Save value' : 'Create item'}
        </button>
      </div>
    </form>
  );
}
