// Signed agent cards (A2A §8.4): a JWS (RFC 7515, `jose`) whose payload is the card's canonical
// form (canonicalCard.ts, §8.4.1), written as the card's `signatures` entry {protected,
// signature} (the payload is the card itself, so it is left out). The protected header names
// the key (`kid`) and where the public keys are published (`jku`): the server's own JWKS
// (getAgentCardJwks, /.well-known/agent-card-jwks.json) unless the operator names another. The JWKS holds the
// signing key's public half and the earlier keys the operator still publishes (key rotation:
// cards signed with a retired key verify until clients have dropped them).
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { FlattenedSign } from 'jose';
import { canonicalCard } from './canonicalCard.ts';

export { canonicalCard } from './canonicalCard.ts';

export interface CardSigningKey {
  /** A PKCS#8 PEM private key, or a private JWK as JSON. */
  key: string;
  /** The JWS `kid` clients look the public key up by. */
  kid: string;
  /** The JWS algorithm (default ES256). */
  alg: string;
  /** Where the public keys are published (JWS `jku`); default this server's JWKS. */
  jku?: string;
  /** Earlier keys' public halves, still published beside the signing key's: a JWKS or a JWK, as JSON. */
  published?: string;
}

/** Where this server publishes its card keys, below its base URL (getAgentCardJwks in spec/agent-server.openapi.yaml). */
export const JWKS_PATH = '/.well-known/agent-card-jwks.json';

export interface CardSigner {
  /** The card with its signature; `baseUrl` the base the request reached the server at (the default `jku`). */
  sign<Card extends object>(card: Card, baseUrl: string): Promise<Card & { signatures: { protected: string; signature: string }[] }>;
  /** The public keys, as a JWK Set (RFC 7517 §5). */
  jwks: { keys: JsonWebKey[] };
}

/** A signer for the configured key; the keys are read once (a bad key fails the start, not a request). */
export function cardSigner(config: CardSigningKey): CardSigner {
  const text = config.key.trim();
  const key: KeyObject = text.startsWith('{') ? createPrivateKey({ key: JSON.parse(text) as JsonWebKey, format: 'jwk' }) : createPrivateKey(text);
  const own = { ...createPublicKey(key).export({ format: 'jwk' }), kid: config.kid, alg: config.alg, use: 'sig' };
  const earlier = config.published ? publishedKeys(config.published) : [];
  if (earlier.some((k) => k.kid === config.kid)) throw new Error(`AGENTPLANE_A2A_SIGNING_PUBLISHED_KEYS: kid '${config.kid}' is the signing key's own`);
  return {
    jwks: { keys: [own, ...earlier] },
    async sign(card, baseUrl) {
      const header = { alg: config.alg, typ: 'JOSE', kid: config.kid, jku: config.jku ?? `${baseUrl.replace(/\/+$/, '')}${JWKS_PATH}` };
      const jws = await new FlattenedSign(new TextEncoder().encode(canonicalCard(card))).setProtectedHeader(header).sign(key);
      return { ...card, signatures: [{ protected: jws.protected!, signature: jws.signature }] };
    },
  };
}

/** Earlier public keys: each must be public (no private member) and named (`kid`). */
function publishedKeys(text: string): JsonWebKey[] {
  const parsed = JSON.parse(text) as { keys?: JsonWebKey[] } & JsonWebKey;
  const keys = Array.isArray(parsed.keys) ? parsed.keys : [parsed];
  for (const k of keys) {
    if (typeof k.kid !== 'string' || !k.kid) throw new Error('AGENTPLANE_A2A_SIGNING_PUBLISHED_KEYS: every key needs a kid');
    // a private key published by mistake would hand out the means to sign
    if (['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'].some((member) => member in k)) {
      throw new Error(`AGENTPLANE_A2A_SIGNING_PUBLISHED_KEYS: key '${k.kid}' has private members; publish its public half only`);
    }
    createPublicKey({ key: k, format: 'jwk' });
  }
  return keys;
}
