// The OAuth providers page lists the tenant's tokens — user, provider, scopes, account label,
// expiry, never a token's value — and deletes them: one token (revoked at the provider), then
// the provider with the tokens left. The tokens are real, got through oidc-provider on loopback.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { json } from '../../control-plane/support.ts';
import { CLIENT, startOAuthServer, type OAuthServer } from '../../control-plane/oauthServer.ts';
import { dashboardFixture, openPage, pageErrors, screenshot } from '../../support/browser.ts';

const fixture = dashboardFixture({
  env: {
    AGENTPLANE_TOKEN_KEY: randomBytes(32).toString('base64'),
    AGENTPLANE_AUTH_ALLOW_HTTP: '1',
    AGENTPLANE_AUTH_ALLOWED_NETWORKS: '127.0.0.1/32,::1/128',
  },
});
let idp: OAuthServer | undefined;
after(() => idp?.close());

/** A token for `user` through the whole flow, as the API gets one: authenticate → consent → callback → wait. */
async function tokenFor(user: string, scopes: string[]): Promise<string> {
  const { server } = fixture;
  const started = await json(await server.api('/v2/auth/authenticate', { method: 'POST', json: { provider: 'idp', scopes, user_id: user } }), 200);
  assert.equal((await fetch(await idp!.consent(started.url, user))).status, 200);
  return (await json(await server.api(`/v2/auth/wait/${started.auth_id}?timeout=5`), 200)).token;
}

test('lists the tenant’s tokens without their values, deletes one, then the provider with the rest', { timeout: 120_000 }, async () => {
  const { server, browser } = fixture;
  // the server's URL is known once the fixture started it: the IdP registers its callback
  idp = await startOAuthServer([`${server.url}/v2/auth/callback/idp`]);
  const provider = { provider_id: 'idp', name: 'Test IdP', ...CLIENT, auth_url: `${idp.issuer}/auth`, token_url: `${idp.issuer}/token` };
  await json(await server.api('/v2/auth/providers', { method: 'POST', json: { ...provider, revocation_url: `${idp.issuer}/token/revocation` } }), 200);
  const alice = await tokenFor('alice', ['repo']);
  const bob = await tokenFor('bob', ['read', 'repo']);
  const [aliceToken] = await json(await server.api('/v2/auth/tokens?user_id=alice'), 200);
  await json(
    await server.api(`/v2/auth/tokens/${aliceToken.id}/metadata?user_id=alice`, { method: 'PATCH', json: { provider_account_label: 'alice@idp.example' } }),
    200,
  );

  const page = await openPage(browser, `${server.url}/dashboard/providers`, { key: server.key });
  const tokens = page.getByRole('region', { name: 'Tokens' });
  const aliceRow = tokens.getByRole('row').filter({ hasText: 'alice' });
  const bobRow = tokens.getByRole('row').filter({ hasText: 'bob' });
  await aliceRow.waitFor();
  assert.deepEqual(
    await aliceRow
      .getByRole('cell')
      .allInnerTexts()
      .then((cells) => cells.slice(0, 4)),
    ['alice', 'idp', 'repo', 'alice@idp.example'],
  );
  assert.deepEqual(
    await bobRow
      .getByRole('cell')
      .allInnerTexts()
      .then((cells) => cells.slice(0, 3)),
    ['bob', 'idp', 'read repo'],
  );
  // the expiry is shown (oidc-provider's tokens expire), and no token's value anywhere in the page
  assert.match(await aliceRow.getByRole('cell').nth(4).innerText(), /\d/);
  const html = await page.content();
  assert.equal(html.includes(alice), false);
  assert.equal(html.includes(bob), false);
  await screenshot(page, 'oauth-tokens');

  // one token: gone from the page and the API, and revoked at the provider
  await aliceRow.getByRole('button', { name: 'Delete' }).click();
  await aliceRow.getByRole('button', { name: 'Yes, delete' }).click();
  await aliceRow.waitFor({ state: 'detached' });
  assert.deepEqual(await json(await server.api('/v2/auth/tokens?user_id=alice'), 200), []);
  assert.equal((await idp.introspect(alice)).active, false);
  assert.equal(await bobRow.count(), 1);

  // the provider: its row and bob's token go with it
  const providerRow = page.getByRole('table', { name: 'OAuth providers' }).getByRole('row').filter({ hasText: 'Test IdP' });
  await providerRow.getByRole('button', { name: 'Delete' }).click();
  await providerRow.getByRole('button', { name: 'Yes, delete' }).click();
  await providerRow.waitFor({ state: 'detached' });
  await tokens.getByText('No tokens.').waitFor();
  assert.deepEqual(await json(await server.api('/v2/auth/tokens'), 200), []);
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
