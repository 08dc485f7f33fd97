// A listener's own credential. A listener gets a token when it is created (and a new one
// when its tenant rotates it), shown once; the store keeps only its SHA-256. What a listener
// does as the listener (heartbeat, reports) is accepted with that token only: an API key of
// the tenant manages listeners but can no longer act as one, so the secrets a heartbeat
// carries reach the listener's machine and nobody else.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { fail, ok, type Outcome } from '../outcome.ts';
import type { ControlPlaneRepository, ListenerRecord } from './records.ts';

/** The token's prefix says what it is when it turns up in a file or a leak scanner. */
const PREFIX = 'aplt_';

export interface IssuedToken {
  token: string;
  hash: string;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

/** 32 random bytes: a token nobody guesses, whose hash alone is kept. */
export function issueToken(): IssuedToken {
  const token = `${PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: sha256(token).toString('hex') };
}

/**
 * Every token that does not open this listener gets the same answer: none sent, an API key,
 * another listener's, a rotated one, or a listener that does not exist (or is another
 * tenant's) — so a token says nothing about listeners other than its own.
 */
const refused = () => fail('unauthenticated', 'Invalid listener token.');

/** The listener `token` opens, when it is the token of listener `id`. */
export async function listenerByToken(repo: ControlPlaneRepository, id: string, token: string): Promise<Outcome<ListenerRecord, 'unauthenticated'>> {
  const record = await repo.listeners.get(id);
  const stored = record?.token_hash ? Buffer.from(record.token_hash, 'hex') : null;
  const given = sha256(token);
  // compared in constant time, on hashes of equal length
  if (!record || !stored || stored.length !== given.length || !timingSafeEqual(stored, given)) return refused();
  return ok(record);
}
