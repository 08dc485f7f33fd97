// The development OAuth provider (AGENTPLANE_DEV_OAUTH), as the control plane's operations for it
// (devAuthorize, devConsent, devToken) ask it: its pages, where a consent sends the browser back,
// and its token endpoint's answers. The adapter: adapters/oauth/devAuthorizationServer.ts.

/** An authorization request's fields (from the page's query, or its form with the user's decision) or a token request's. */
export interface AuthorizationFields {
  readonly response_type?: string;
  readonly client_id?: string;
  readonly redirect_uri?: string;
  readonly scope?: string;
  readonly state?: string;
  readonly code_challenge?: string;
  readonly code_challenge_method?: string;
  readonly decision?: string;
  readonly grant_type?: string;
  readonly code?: string;
  readonly code_verifier?: string;
  readonly refresh_token?: string;
}

/** A page to show: the consent asked for, or why the request is not one this provider takes. */
export interface DevPage {
  shown: 'consent' | 'refusal';
  html: string;
}

/** RFC 6749 §5.1. */
export interface DevTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** The token endpoint's answer: tokens, or OAuth's error (RFC 6749 §5.2). */
export type DevTokenAnswer = { tokens: DevTokens } | { error: 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type'; error_description?: string };

export interface DevProvider {
  /** The consent page for an authorization request. `origins`: those a redirect may go back to (this server's). */
  authorizePage(origins: readonly string[], query: AuthorizationFields): DevPage;
  /** The user's answer: where the browser goes back to (with a code, or the refusal), or the page saying why the request is not one. */
  consent(origins: readonly string[], form: AuthorizationFields): { redirect: string } | DevPage;
  /** A code or a refresh token for tokens. */
  token(form: AuthorizationFields): DevTokenAnswer;
}
