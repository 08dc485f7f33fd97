// What an agent card declares about authentication, for each auth in force.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cardSecurity } from '../../../src/domain/a2a/cardSecurity.ts';

test('no auth in force: nothing declared', () => {
  assert.equal(cardSecurity({ apiKeys: false, customAuth: false }), undefined);
  // schemes described for a custom auth that is not configured say nothing
  assert.equal(cardSecurity({ apiKeys: false, customAuth: false, configured: { Oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://i' } } }), undefined);
});

test('API keys: X-Api-Key or the key as a bearer token, either one', () => {
  const declared = cardSecurity({ apiKeys: true, customAuth: false })!;
  assert.deepEqual(Object.keys(declared.securitySchemes), ['ApiKey', 'BearerAuth']);
  assert.deepEqual(declared.securitySchemes.ApiKey, { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An agentplane API key.' });
  assert.deepEqual(declared.security, [{ ApiKey: [] }, { BearerAuth: [] }]);
});

test("custom auth: the operator's schemes, each an alternative with its scopes (the scopes are no part of the scheme); a bearer token unless described", () => {
  const described = cardSecurity({
    apiKeys: false,
    customAuth: true,
    configured: {
      Oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://idp/.well-known/openid-configuration', scopes: ['a2a'] },
      Oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://idp/token', scopes: { a2a: 'call the agent' } } } },
    },
  })!;
  assert.deepEqual(described.securitySchemes.Oidc, { type: 'openIdConnect', openIdConnectUrl: 'https://idp/.well-known/openid-configuration' });
  assert.deepEqual(described.security, [{ Oidc: ['a2a'] }, { Oauth: [] }]);
  assert.deepEqual(cardSecurity({ apiKeys: false, customAuth: true })!.security, [{ BearerAuth: [] }]);
});

test('both: every alternative of the custom auth with an API key in X-Api-Key (the bearer header is the project auth’s)', () => {
  const both = cardSecurity({ apiKeys: true, customAuth: true })!;
  assert.deepEqual(Object.keys(both.securitySchemes), ['ApiKey', 'BearerAuth']);
  assert.equal(both.securitySchemes.BearerAuth.description, "A bearer token the project's auth accepts.");
  assert.deepEqual(both.security, [{ ApiKey: [], BearerAuth: [] }]);
});
