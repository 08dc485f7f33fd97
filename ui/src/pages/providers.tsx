// Control plane: OAuth providers, listed, created and edited with forms from the spec, and
// below them the tokens the tenant's users got through them (tokens.tsx).
import { useState } from 'preact/hooks';
import { call } from '../api';
import type { AuthProvider as Provider } from '../contract';
import { ConfirmButton, ErrorNotice, Raw, Time, useAction, useLoad } from '../components';
import { SchemaForm } from '../schemaForm';
import { TokensSection } from './tokens';

export function ProvidersPage() {
  const list = useLoad(() => call<{ resources?: Provider[] } | Provider[]>('GET', '/v2/auth/providers?limit=100'), []);
  const rows = Array.isArray(list.data) ? list.data : (list.data?.resources ?? []);
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  // a provider's deletion deletes its tokens: the token list loads again after one
  const [deletions, setDeletions] = useState(0);
  const remove = useAction(async (providerId: string) => {
    await call('DELETE', `/v2/auth/providers/${encodeURIComponent(providerId)}`);
    list.reload();
    setDeletions((n) => n + 1);
  });
  return (
    <>
      <div class="page-head">
        <h1>OAuth providers</h1>
        <button type="button" class="primary" onClick={() => setEditing(editing === 'new' ? null : 'new')} aria-expanded={editing === 'new'}>
          New provider
        </button>
      </div>
      {editing === 'new' && (
        <SchemaForm
          schema="AuthProviderCreate"
          label="New OAuth provider"
          submitLabel="Create provider"
          onSubmit={async (body) => {
            await call('POST', '/v2/auth/providers', body);
            setEditing(null);
            list.reload();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      <ErrorNotice error={list.error ?? remove.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">OAuth providers</caption>
          <thead>
            <tr>
              <th scope="col">Provider id</th>
              <th scope="col">Name</th>
              <th scope="col">Client id</th>
              <th scope="col">Authorization URL</th>
              <th scope="col">PKCE</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((p) => (
              <>
                <tr key={p.id}>
                  <td>
                    <code>{p.provider_id}</code>
                  </td>
                  <td>{p.name}</td>
                  <td>
                    <code>{p.client_id}</code>
                  </td>
                  <td class="wrap">{p.auth_url}</td>
                  <td>{p.uses_pkce ? 'yes' : 'no'}</td>
                  <td>
                    <Time iso={p.updated_at} />
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      onClick={() => setEditing(editing === p.provider_id ? null : p.provider_id)}
                      aria-expanded={editing === p.provider_id}
                    >
                      Edit
                    </button>
                    <ConfirmButton label="Delete" question={`Delete ${p.provider_id} and its tokens?`} onConfirm={() => remove.run(p.provider_id)} />
                    <Raw value={p} />
                  </td>
                </tr>
                {editing === p.provider_id && (
                  <tr key={`${p.id}-edit`}>
                    <td colSpan={7}>
                      <SchemaForm
                        schema="AuthProviderPatch"
                        label={`Edit ${p.provider_id}`}
                        submitLabel="Save provider"
                        placeholders={p as unknown as Record<string, unknown>}
                        onSubmit={async (body) => {
                          await call('PATCH', `/v2/auth/providers/${encodeURIComponent(p.provider_id)}`, body);
                          setEditing(null);
                          list.reload();
                        }}
                        onCancel={() => setEditing(null)}
                      />
                    </td>
                  </tr>
                )}
              </>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && rows.length === 0 && !list.error && <p class="muted">No OAuth providers.</p>}
      <TokensSection version={deletions} />
    </>
  );
}
