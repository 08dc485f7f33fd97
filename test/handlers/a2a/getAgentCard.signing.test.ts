// Signed agent cards that a client verifies with nothing but the card: the key is found
// through the signature's `jku` (the server's JWKS), and the signature covers the card's
// canonical form (A2A §8.4.1) as @a2a-js/sdk 1.3.0 computes it, so its
// verifyAgentCardSignature accepts the v1.0 card, the 0.3 card and the 0.3 card at A2A 0.2's
// path; jose verifies the same JWS. Key rotation: an earlier key published beside the new one
// still verifies what it signed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalizeAgentCard, verifyAgentCardSignature } from '@a2a-js/sdk-v1';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, exportPKCS8, flattenedVerify, generateKeyPair, type JWK } from 'jose';
import { type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { canonicalCard, cardSigner } from '../../../src/handlers/a2a/v1/cardSigning.ts';
import { fixtureGraphs } from './harness.ts';

let app: InProcessApp;
/** The public half of a key the operator signed with before (rotation). */
let retired: { privatePem: string; publicJwk: JWK };

before(async () => {
  const current = await generateKeyPair('ES256', { extractable: true });
  const earlier = await generateKeyPair('ES256', { extractable: true });
  retired = { privatePem: await exportPKCS8(earlier.privateKey), publicJwk: { ...(await exportJWK(earlier.publicKey)), kid: 'old', alg: 'ES256' } };
  app = await areaApp('a2a', {
    project: { graphs: fixtureGraphs },
    env: {
      AGENTPLANE_A2A_SIGNING_KEY: await exportPKCS8(current.privateKey),
      AGENTPLANE_A2A_SIGNING_KEY_ID: 'new',
      AGENTPLANE_A2A_SIGNING_PUBLISHED_KEYS: JSON.stringify({ keys: [retired.publicJwk] }),
      // auth on: the cards declare security schemes (covered by the v1.0 signature), and are read without a key
      AGENTPLANE_AGENT_SERVER_AUTH: '1',
    },
  });
});
after(() => app.close());

/** What a client does with a card alone: fetch the JWKS its signature names, take the key of its kid. */
async function keyFromJku(kid: string, jku?: string): Promise<JWK> {
  assert.ok(jku, 'the signature names its JWKS');
  const res = await app.fetch(jku);
  assert.equal(res.status, 200);
  const { keys } = (await res.json()) as { keys: JWK[] };
  const key = keys.find((k) => k.kid === kid);
  assert.ok(key, `the JWKS has the key '${kid}'`);
  return key;
}

const CARDS = {
  'v1.0 card': { path: '/.well-known/agent-card.json?assistant_id=echo', headers: { 'A2A-Version': '1.0' } },
  '0.3 card': { path: '/.well-known/agent-card.json?assistant_id=echo', headers: {} },
  '0.3 card at /.well-known/agent.json': { path: '/.well-known/agent.json?assistant_id=echo', headers: {} },
};

describe('the SDK verifies every card with the key found through jku', () => {
  for (const [name, { path, headers }] of Object.entries(CARDS)) {
    test(name, async () => {
      const res = await app.fetch(path, { headers });
      assert.equal(res.status, 200);
      const card = (await res.json()) as { signatures: { protected: string; signature: string }[]; securitySchemes?: object };
      assert.equal(card.signatures.length, 1);
      assert.ok(card.securitySchemes, 'the card declares how to authenticate');
      const header = decodeProtectedHeader(card.signatures[0]);
      assert.deepEqual(header, { alg: 'ES256', typ: 'JOSE', kid: 'new', jku: `${app.url}/.well-known/agent-card-jwks.json` });
      // the SDK's own canonical form is what was signed
      assert.equal(canonicalCard(card), canonicalizeAgentCard(card as never));
      await verifyAgentCardSignature(keyFromJku)(card as never);
      // and jose alone verifies it over that payload, with the JWKS as a key set
      const jwks = (await (await app.fetch('/.well-known/agent-card-jwks.json')).json()) as { keys: JWK[] };
      const payload = Buffer.from(canonicalizeAgentCard(card as never)).toString('base64url');
      await flattenedVerify({ ...card.signatures[0], payload }, createLocalJWKSet(jwks));
      // a card changed in transit does not verify (the SDK logs each failed entry with console.debug)
      const debug = console.debug;
      console.debug = () => undefined;
      try {
        await assert.rejects(verifyAgentCardSignature(keyFromJku)({ ...card, description: 'changed' } as never), /No valid signatures/);
      } finally {
        console.debug = debug;
      }
    });
  }
});

test('the JWKS is public, holds the signing key and the earlier published one, public halves only', async () => {
  const res = await app.fetch('/.well-known/agent-card-jwks.json');
  assert.equal(res.status, 200);
  const { keys } = (await res.json()) as { keys: JWK[] };
  assert.deepEqual(
    keys.map((k) => [k.kid, k.alg, k.use ?? null]),
    [
      ['new', 'ES256', 'sig'],
      ['old', 'ES256', null],
    ],
  );
  for (const key of keys) assert.equal('d' in key, false, 'no private member');
  // a card the retired key signed (cached by a client before the rotation) still verifies
  const card = (await (await app.fetch('/.well-known/agent-card.json?assistant_id=echo', { headers: { 'A2A-Version': '1.0' } })).json()) as object;
  const { signatures: _, ...unsigned } = card as { signatures: unknown };
  const before = await cardSigner({ key: retired.privatePem, kid: 'old', alg: 'ES256' }).sign(unsigned, app.url);
  await verifyAgentCardSignature(keyFromJku)(before as never);
});

test('the canonical form drops what the SDK drops: undeclared fields, empty values, defaults; keeps an optional false', () => {
  const card = {
    name: 'n',
    description: 'd',
    supportedInterfaces: [{ url: 'http://x/a2a/n', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' }],
    version: '1',
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [{ uri: 'urn:x', required: false, params: { a: '', b: [1] } }],
    },
    securitySchemes: {
      ApiKey: { apiKeySecurityScheme: { location: 'header', name: 'X-Api-Key', description: '' } },
      Oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: 'https://idp/.well-known/openid-configuration' } },
      Oauth: {
        oauth2SecurityScheme: {
          flows: { authorizationCode: { authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { r: 'read' }, pkceRequired: false } },
        },
      },
    },
    securityRequirements: [{ schemes: { ApiKey: { list: [] } } }, { schemes: { Oauth: { list: ['r'] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: [],
    skills: [{ id: 's', name: 's', description: 'd', tags: ['t'], examples: [], inputModes: ['', 'text/plain'] }],
    url: 'http://x/a2a/n',
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    security: [{ ApiKey: [] }],
  };
  assert.equal(canonicalCard(card), canonicalizeAgentCard(card as never));
});

test('a published key with private members, or without a kid, stops the start', async () => {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const pem = await exportPKCS8(privateKey);
  const jwk = await exportJWK(privateKey);
  assert.throws(() => cardSigner({ key: pem, kid: 'k', alg: 'ES256', published: JSON.stringify({ ...jwk, kid: 'p' }) }), /private members/);
  assert.throws(() => cardSigner({ key: pem, kid: 'k', alg: 'ES256', published: JSON.stringify(retired.publicJwk).replace('"kid":"old",', '') }), /kid/);
});
