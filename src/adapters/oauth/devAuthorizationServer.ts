// The development OAuth provider (AGENTPLANE_DEV_OAUTH): a small authorization server on
// agentplane itself, so that a graph asking for a token (the shipped `connected` example) can be
// tried with no settings and no network. It stands in for a provider id the tenant has not
// configured (agentAuth/standInProvider.ts): the consent page says so, in so many words, and
// the tokens it issues open nothing anywhere else. A provider the operator configures under
// that id replaces it; production servers do not offer it unless told to (config.ts).
//
// RFC 6749's authorization-code grant with PKCE (S256) only, public client, in memory: codes
// live 5 minutes and are single-use; access tokens an hour; refresh tokens until the server
// stops (after a restart the user consents again, as after a revoked grant).
//
// Its routes are operations of the control plane's contract (devAuthorize, devConsent, devToken;
// handlers/control-plane/devProvider.ts): this answers what each of them asks, as pages and
// OAuth's own JSON.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { OAuthFailure, type IssuedTokens } from '../../domain/ports/oauthClient.ts';
import type { AuthorizationFields, DevPage, DevProvider, DevTokenAnswer, DevTokens } from '../../domain/ports/devProvider.ts';

export const DEV_AUTHORIZE_PATH = '/dev/oauth/authorize';
export const DEV_TOKEN_PATH = '/dev/oauth/token';
export const DEV_CLIENT_ID = 'agentplane-dev';
/** Where the auth service's callbacks are: the only redirect this server sends a consent to. */
const CALLBACK_PATH = '/v2/auth/callback/';
const CODE_TTL_MS = 5 * 60 * 1000;
const ACCESS_TTL_S = 3600;

interface IssuedCode {
  redirectUri: string;
  challenge: string;
  scopes: string[];
  expiresAt: number;
}

/** What an authorization request says, checked: anything else is answered with an error page, never a redirect. */
interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  scopes: string[];
  challenge: string;
  /** The provider id it stands in for (from the callback's path), for the page. */
  standsFor: string;
}

export class DevAuthorizationServer implements DevProvider {
  private readonly codes = new Map<string, IssuedCode>();
  private readonly refreshTokens = new Map<string, string[]>();

  /**
   * The consent page for an authorization request (GET devAuthorize), or the page saying why
   * it is not one. `origins`: those a redirect may go back to, this server's (its public URL,
   * else the origin the page was reached on).
   */
  authorizePage(origins: readonly string[], query: AuthorizationFields): DevPage {
    const asked = readRequest(origins, query);
    if (typeof asked === 'string') return refusal(asked);
    return page('consent', 'Development sign-in', consentPage(asked, query));
  }

  /** The user's answer (POST devConsent): where to send the browser back, with a code or the refusal; or the page saying why the request is not one. */
  consent(origins: readonly string[], form: AuthorizationFields): { redirect: string } | DevPage {
    const asked = readRequest(origins, form);
    if (typeof asked === 'string') return refusal(asked);
    const back = new URL(asked.redirectUri);
    back.searchParams.set('state', asked.state);
    if (form.decision === 'allow') {
      const code = randomBytes(24).toString('base64url');
      this.forgetExpired();
      this.codes.set(code, { redirectUri: asked.redirectUri, challenge: asked.challenge, scopes: asked.scopes, expiresAt: Date.now() + CODE_TTL_MS });
      back.searchParams.set('code', code);
    } else {
      back.searchParams.set('error', 'access_denied');
      back.searchParams.set('error_description', 'the user denied the development sign-in');
    }
    return { redirect: back.href };
  }

  /** The token endpoint (POST devToken): a code or a refresh token for tokens, or OAuth's error. */
  token(form: AuthorizationFields): DevTokenAnswer {
    try {
      if (form.client_id !== DEV_CLIENT_ID) return { error: 'invalid_client' };
      if (form.grant_type === 'authorization_code')
        return { tokens: wire(this.exchange(form.code ?? '', form.redirect_uri ?? '', form.code_verifier ?? null)) };
      if (form.grant_type === 'refresh_token') return { tokens: wire(this.refresh(form.refresh_token ?? '')) };
      return { error: 'unsupported_grant_type' };
    } catch (error) {
      if (!(error instanceof OAuthFailure)) throw error;
      return { error: 'invalid_grant', error_description: error.message };
    }
  }

  /** The authorization-code grant: the code's PKCE verifier and redirect must match; a code serves once. */
  exchange(code: string, redirectUri: string, verifier: string | null): IssuedTokens {
    const issued = this.codes.get(code);
    this.codes.delete(code);
    if (!issued || issued.expiresAt <= Date.now()) throw new OAuthFailure('exchanging the code failed: invalid_grant (unknown, used or expired code)', true);
    if (issued.redirectUri !== redirectUri) throw new OAuthFailure('exchanging the code failed: invalid_grant (redirect_uri differs)', true);
    if (!verifier || !sameText(s256(verifier), issued.challenge)) throw new OAuthFailure('exchanging the code failed: invalid_grant (PKCE verifier)', true);
    return this.tokens(issued.scopes);
  }

  refresh(refreshToken: string): IssuedTokens {
    const scopes = this.refreshTokens.get(refreshToken);
    if (!scopes) throw new OAuthFailure('refreshing the token failed: invalid_grant', true);
    this.refreshTokens.delete(refreshToken);
    return this.tokens(scopes);
  }

  /** RFC 7009: a refresh token revoked is forgotten; an access token expires by itself. */
  revoke(token: string): void {
    this.refreshTokens.delete(token);
  }

  private tokens(scopes: string[]): IssuedTokens {
    const refreshToken = `dev-refresh-${randomBytes(24).toString('base64url')}`;
    this.refreshTokens.set(refreshToken, scopes);
    return { accessToken: `dev-${randomBytes(24).toString('base64url')}`, refreshToken, expiresIn: ACCESS_TTL_S, scope: scopes.join(' ') };
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [code, issued] of this.codes) if (issued.expiresAt <= now) this.codes.delete(code);
  }
}

/** What an authorization request says, checked; a string says why it is not one. */
function readRequest(origins: readonly string[], params: AuthorizationFields): AuthorizationRequest | string {
  if (params.response_type !== 'code') return 'This development provider answers response_type=code only.';
  if (params.client_id !== DEV_CLIENT_ID) return `This development provider knows one client, ${DEV_CLIENT_ID}.`;
  if (params.code_challenge_method !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge ?? ''))
    return 'This development provider needs PKCE (code_challenge with S256).';
  const state = params.state;
  if (!state) return 'The request has no state.';
  let redirect: URL;
  try {
    redirect = new URL(params.redirect_uri ?? '');
  } catch {
    return 'The request has no valid redirect_uri.';
  }
  // only back to this server's own callback: never an open redirect
  if (!redirect.pathname.startsWith(CALLBACK_PATH) || redirect.search || !origins.includes(redirect.origin))
    return 'The redirect_uri is not a callback of this server.';
  const standsFor = decodeURIComponent(redirect.pathname.slice(CALLBACK_PATH.length));
  const scopes = (params.scope ?? '').split(' ').filter(Boolean);
  return { redirectUri: redirect.href, state, scopes, challenge: params.code_challenge!, standsFor };
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const wire = (issued: IssuedTokens): DevTokens => ({
  access_token: issued.accessToken,
  token_type: 'Bearer',
  // this provider's own tokens always have all three
  expires_in: issued.expiresIn ?? ACCESS_TTL_S,
  refresh_token: issued.refreshToken ?? '',
  scope: issued.scope ?? '',
});

function consentPage(asked: AuthorizationRequest, query: AuthorizationFields): string {
  const hidden = (['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const)
    .filter((name) => query[name] !== undefined)
    .map((name) => `<input type="hidden" name="${name}" value="${escape(query[name]!)}">`)
    .join('');
  const scopes = asked.scopes.length ? asked.scopes.map((s) => `<code>${escape(s)}</code>`).join(' ') : 'none';
  return `<p role="alert"><strong>Development only.</strong> No provider <code>${escape(asked.standsFor)}</code> is configured on this server, so
agentplane's built-in development provider signs you in instead. The token it issues works nowhere else.</p>
<p>An agent asks for a token for <code>${escape(asked.standsFor)}</code> with the scopes ${scopes}.</p>
<form method="post" action="${DEV_AUTHORIZE_PATH}">${hidden}
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
<p>To use the real provider, register it: <code>POST /v2/auth/providers</code> with <code>provider_id</code> "${escape(asked.standsFor)}"
(docs/control-plane.md, Agent auth). <code>AGENTPLANE_DEV_OAUTH=off</code> turns this page off.</p>`;
}

const refusal = (why: string) => page('refusal', 'Cannot sign in', `<p>${escape(why)}</p>`);

function page(shown: DevPage['shown'], title: string, body: string): DevPage {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title} — agentplane (development)</title>
<style>body{font:16px system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}[role=alert]{background:#fff3cd;padding:.75rem;border:1px solid #e0c060}button{font-size:1rem;margin-right:.5rem}</style>
</head><body><h1>${title}</h1>${body}</body></html>`;
  return { shown, html };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
