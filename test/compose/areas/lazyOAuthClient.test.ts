// The network OAuth client loads its modules at its first call (issue 86): a wrong allowed
// network still refuses at once, as the client's constructor does, and a call goes to the client
// the loader made (a refused address is the same OAuthFailure).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lazyOAuthClient } from '../../../src/compose/areas/lazyOAuthClient.ts';
import { OAuthFailure } from '../../../src/domain/ports/oauthClient.ts';

test('a wrong allowed network refuses when the client is made, naming the setting', () => {
  assert.throws(() => lazyOAuthClient({ allowHttp: false, allowedNetworks: ['not-a-network'] }), /AGENTPLANE_AUTH_ALLOWED_NETWORKS/);
});

test('a call goes to the loaded client: a non-public address is refused as OAuthFailure, twice the same way', async () => {
  const client = lazyOAuthClient({ allowHttp: true, allowedNetworks: [] });
  for (let i = 0; i < 2; i += 1) await assert.rejects(client.discoverMcp('http://10.0.0.1/mcp'), (err) => err instanceof OAuthFailure);
});
