// A real OAuth 2.0 authorization server on loopback for the auth service's tests: oidc-provider
// with a confidential client registered for agentplane's callback, dynamic registration,
// introspection and revocation, and its development login and consent pages, which `consent`
// completes as a browser would (following redirects, keeping cookies, posting the forms).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const CLIENT = { client_id: 'agentplane', client_secret: 'agentplane-secret-0123456789abcdef' };
/** Access tokens live this long (s): 60 s of it is the refresh margin, so a token is refreshed 10 s after it is issued (room for a loaded machine). */
export const ACCESS_TOKEN_TTL = 70;

export interface OAuthServer {
  issuer: string;
  /** Logs in as `login` and consents, from the authorization URL to the redirect to agentplane's callback; answers the callback's URL (not fetched). */
  consent(authorizationUrl: string, login: string): Promise<string>;
  /** RFC 7662 introspection as the registered client. */
  introspect(token: string): Promise<{ active: boolean; sub?: string; scope?: string; client_id?: string }>;
  close(): Promise<void>;
}

export async function startOAuthServer(callbackUrls: string[]): Promise<OAuthServer> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        ...CLIENT,
        redirect_uris: callbackUrls,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    scopes: ['repo', 'read', 'offline_access'],
    cookies: { keys: ['agentplane-test-cookie-key'] },
    features: {
      devInteractions: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => 'urn:agentplane:test-api',
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: 'repo read',
          audience: 'urn:agentplane:test-api',
          accessTokenTTL: ACCESS_TOKEN_TTL,
          accessTokenFormat: 'opaque',
        }),
      },
    },
    issueRefreshToken: async () => true,
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  });
  server.on('request', provider.callback());

  async function consent(authorizationUrl: string, login: string): Promise<string> {
    const cookies = new Map<string, string>();
    const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const keep = (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair.indexOf('=');
        cookies.set(pair.slice(0, at), pair.slice(at + 1));
      }
    };
    let url = authorizationUrl;
    let form: { prompt: string; fields: Record<string, string> } | undefined;
    for (let hop = 0; hop < 20; hop += 1) {
      if (!url.startsWith(issuer)) return url;
      const response = form
        ? await fetch(url, {
            method: 'POST',
            redirect: 'manual',
            headers: { cookie: cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ prompt: form.prompt, ...form.fields }),
          })
        : await fetch(url, { redirect: 'manual', headers: { cookie: cookieHeader() } });
      form = undefined;
      keep(response);
      const location = response.headers.get('location');
      if (location) {
        await response.body?.cancel();
        url = new URL(location, url).href;
        continue;
      }
      const page = await response.text();
      const action = page.match(/<form[^>]*action="([^"]+)"/)?.[1];
      const prompt = page.match(/name="prompt" value="([^"]+)"/)?.[1];
      if (!action || !prompt) throw new Error(`the authorization server answered ${response.status} without a form: ${page.slice(0, 300)}`);
      url = new URL(action.replace(/&amp;/g, '&'), url).href;
      form = { prompt, fields: prompt === 'login' ? { login, password: 'any' } : {} };
    }
    throw new Error('the authorization server never redirected back');
  }

  async function introspect(token: string) {
    const response = await fetch(`${issuer}/token/introspection`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, ...CLIENT }),
    });
    if (!response.ok) throw new Error(`introspection answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as { active: boolean; sub?: string; scope?: string; client_id?: string };
  }

  return {
    issuer,
    consent,
    introspect,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
