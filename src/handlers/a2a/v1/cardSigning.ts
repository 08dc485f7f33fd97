// Signed v1.0 agent cards (A2A §8.4): a JWS (RFC 7515, `jose`) whose payload is the card's
// RFC 8785 canonical form (`canonicalize`) without `signatures`, written as the card's
// `signatures` entry {protected, signature} (the payload is the card itself, so it is left out).
import canonicalizeModule from 'canonicalize';
import { FlattenedSign, importJWK, importPKCS8, type JWK } from 'jose';
import type * as V1 from '../../../../generated/a2a-v1/types.gen.ts';

// a CommonJS module whose types declare an ES default export: at run time the import is the function
const canonicalize = ((canonicalizeModule as unknown as { default?: unknown }).default ?? canonicalizeModule) as (input: unknown) => string | undefined;

export interface CardSigningKey {
  /** A PKCS#8 PEM private key, or a private JWK as JSON. */
  key: string;
  /** The JWS `kid` clients look the public key up by. */
  kid: string;
  /** The JWS algorithm (default ES256). */
  alg: string;
  /** Where the public keys are published (JWS `jku`), if anywhere. */
  jku?: string;
}

export type CardSigner = (card: V1.AgentCard) => Promise<V1.AgentCard>;

/** The payload that is signed: the card without `signatures`, canonical (RFC 8785). */
export function canonicalCard(card: V1.AgentCard): string {
  const { signatures: _signatures, ...unsigned } = card;
  return canonicalize(unsigned) as string;
}

/** A signer for the configured key; the key is read once (a bad key fails the start, not a request). */
export async function cardSigner(config: CardSigningKey): Promise<CardSigner> {
  const text = config.key.trim();
  const key = text.startsWith('{') ? await importJWK(JSON.parse(text) as JWK, config.alg) : await importPKCS8(text, config.alg);
  const header = { alg: config.alg, typ: 'JOSE', kid: config.kid, ...(config.jku ? { jku: config.jku } : {}) };
  return async (card) => {
    const jws = await new FlattenedSign(new TextEncoder().encode(canonicalCard(card))).setProtectedHeader(header).sign(key);
    return { ...card, signatures: [{ protected: jws.protected!, signature: jws.signature }] };
  };
}
