// The URLs of an OAuth provider: `auth_url` is handed to users as the consent link and
// `token_url` / `revocation_url` are called with the client's secret, so each must be an
// https URL — or http where the operator lets the auth service speak plain http
// (AGENTPLANE_AUTH_ALLOW_HTTP: loopback tests, development). Never javascript:, data:, file:….
// Where an http URL may point (private ranges) is the OAuth client's guarded fetch's rule.

const URL_FIELDS = ['auth_url', 'token_url', 'revocation_url'] as const;

export interface UrlProblem {
  loc: (string | number)[];
  msg: string;
}

/** What is wrong with the provider URLs given (fields absent or null are not checked). */
export function providerUrlProblems(fields: Partial<Record<(typeof URL_FIELDS)[number], string | null>>, allowHttp: boolean): UrlProblem[] {
  const problems: UrlProblem[] = [];
  for (const field of URL_FIELDS) {
    const value = fields[field];
    if (value == null) continue;
    let protocol = '';
    let userinfo = false;
    try {
      const url = new URL(value);
      protocol = url.protocol;
      userinfo = url.username !== '' || url.password !== '';
    } catch {
      // not a URL: refused below
    }
    // `https://github.com@127.0.0.1/…` reads as github.com to a user and goes to 127.0.0.1
    if (userinfo && (protocol === 'https:' || protocol === 'http:')) {
      problems.push({ loc: ['body', field], msg: `${field} must not carry user information (user@ or user:password@ before the host).` });
      continue;
    }
    if (protocol === 'https:' || (allowHttp && protocol === 'http:')) continue;
    const wanted = allowHttp ? 'an https or http URL' : 'an https URL (http only with AGENTPLANE_AUTH_ALLOW_HTTP)';
    problems.push({ loc: ['body', field], msg: `${field} must be ${wanted}.` });
  }
  return problems;
}
