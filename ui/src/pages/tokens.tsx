// Control plane: the OAuth tokens the tenant's users hold (GET /v2/auth/tokens without a user),
// with what the listing says — user, provider, scopes, account label, expiry — never a token's
// value (the API has none to give). A token is deleted as its user would (revoked at the
// provider first); a provider's deletion takes its tokens, so the owner passes `version` on.
import { call } from '../api';
import type { AuthTokenSummary as Token } from '../contract';
import { ConfirmButton, ErrorNotice, Section, Time, useAction, useLoad } from '../components';

export function TokensSection({ version }: { version: number }) {
  const list = useLoad(() => call<Token[]>('GET', '/v2/auth/tokens'), [version]);
  const rows = list.data ?? [];
  const remove = useAction(async (token: Token) => {
    await call('DELETE', `/v2/auth/tokens/${encodeURIComponent(token.id)}?user_id=${encodeURIComponent(token.user_id)}`);
    list.reload();
  });
  return (
    <Section title="Tokens">
      <ErrorNotice error={list.error ?? remove.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">OAuth tokens of the tenant's users</caption>
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Provider id</th>
              <th scope="col">Scopes</th>
              <th scope="col">Account</th>
              <th scope="col">Expires</th>
              <th scope="col">Updated</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => (
              <tr key={t.id}>
                <td>{t.user_id}</td>
                <td>
                  <code>{t.provider_id}</code>
                </td>
                <td class="wrap">{(t.scopes ?? []).join(' ') || <span class="muted">—</span>}</td>
                <td>{t.provider_account_label ?? <span class="muted">—</span>}</td>
                <td>{t.expires_at ? <Time iso={t.expires_at} /> : <span class="muted">never</span>}</td>
                <td>
                  <Time iso={t.updated_at} />
                </td>
                <td class="actions">
                  <ConfirmButton label="Delete" question={`Delete ${t.user_id}'s ${t.provider_id} token?`} busy={remove.busy} onConfirm={() => remove.run(t)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && rows.length === 0 && !list.error && <p class="muted">No tokens.</p>}
    </Section>
  );
}
