// The rules of an authorization-code flow (RFC 6749 §4.1, PKCE RFC 7636), as pure functions:
// what the user's URL says, what `state` holds, when a flow or a token is too old.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** A flow not completed in this time is forgotten (its URL no longer works). */
export const FLOW_TTL_MS = 10 * 60 * 1000;
/**
 * A code exchange takes at most the OAuth client's time limit (10 s) and a store write: a flow
 * `exchanging` for longer was cut (its server killed during the exchange) and is failed, so
 * `wait` answers `failed` rather than `timeout` until the flow expires.
 */
export const EXCHANGE_LIMIT_MS = 30 * 1000;

/** Whether a flow's exchange was cut: still `exchanging` past the limit. */
export const exchangeCut = (flow: { status: string; updated_at: string }, now = Date.now()): boolean =>
  flow.status === 'exchanging' && Date.parse(flow.updated_at) + EXCHANGE_LIMIT_MS <= now;

export const EXCHANGE_CUT_ERROR = 'The code exchange was cut off (the server stopped during it); start the flow again.';

/** A token expiring within this is refreshed before it is handed out. */
export const REFRESH_MARGIN_MS = 60 * 1000;

/** Scopes as stored and compared: trimmed, without repeats, sorted. */
export function normalScopes(scopes: readonly string[]): string[] {
  return [...new Set(scopes.map((s) => s.trim()).filter(Boolean))].sort();
}

/** A token granted `granted` serves a request for `wanted` when it has every scope asked for. */
export function covers(granted: readonly string[], wanted: readonly string[]): boolean {
  return wanted.every((s) => granted.includes(s));
}

/**
 * The `state` of a flow: its id (to find it) and a secret (to prove the URL came from this
 * server); only the secret's hash is stored. 32 random bytes: not guessable.
 */
export function newState(): { authId: string; state: string; stateHash: string } {
  const authId = randomUUID();
  const secret = randomBytes(32).toString('base64url');
  return { authId, state: `${authId}.${secret}`, stateHash: hashSecret(secret) };
}

/** The flow a `state` names and whether its secret is that flow's; undefined for anything malformed. */
export function readState(state: string | undefined): { authId: string; secret: string } | undefined {
  const match = state?.match(/^([0-9a-f-]{36})\.([A-Za-z0-9_-]{43})$/);
  return match ? { authId: match[1], secret: match[2] } : undefined;
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** RFC 7636: a 43-character verifier and its S256 challenge. */
export function newPkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizationRequest {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state: string;
  /** With PKCE: the challenge and its method. */
  pkce: { challenge: string; method: 'S256' | 'plain'; verifier: string } | null;
}

/** The URL the user opens (RFC 6749 §4.1.1), keeping any query the provider's URL has. */
export function authorizationUrl(request: AuthorizationRequest): string {
  const url = new URL(request.authUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', request.clientId);
  url.searchParams.set('redirect_uri', request.redirectUri);
  if (request.scopes.length > 0) url.searchParams.set('scope', request.scopes.join(' '));
  url.searchParams.set('state', request.state);
  if (request.pkce) {
    url.searchParams.set('code_challenge', request.pkce.method === 'plain' ? request.pkce.verifier : request.pkce.challenge);
    url.searchParams.set('code_challenge_method', request.pkce.method);
  }
  return url.href;
}

/** Where the provider sends the user back: this server's public URL, per provider. */
export function callbackUrl(baseUrl: string, providerId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v2/auth/callback/${encodeURIComponent(providerId)}`;
}

export const isPast = (iso: string, now = Date.now()) => Date.parse(iso) <= now;

/** Expired, or expiring within the refresh margin. */
export const needsRefresh = (expiresAt: string | null, now = Date.now()) => expiresAt !== null && Date.parse(expiresAt) - REFRESH_MARGIN_MS <= now;

export const expiryOf = (expiresIn: number | null, now = Date.now()): string | null =>
  expiresIn === null ? null : new Date(now + expiresIn * 1000).toISOString();
