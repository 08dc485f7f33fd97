// The conformance suite against an agentplane the test starts itself (real or mock mode),
// with a second one requiring keys everywhere for the credential probes.
import { after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/server.ts';
import { defineSuiteAgainst } from './lib/suite.ts';

/**
 * Reads every assistant's schemas once before the suite: the first read of a graph's schemas
 * runs TypeScript over its source (seconds, tens of them on a loaded machine), which would
 * otherwise meet the suite's per-request time limit in whichever sample comes first.
 */
export async function warmSchemas(url: string, key: string): Promise<void> {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const found = await fetch(`${url}/assistants/search`, { method: 'POST', headers, body: JSON.stringify({ limit: 1000 }) });
  assert.equal(found.status, 200, await found.clone().text());
  const assistants = (await found.json()) as { assistant_id: string }[];
  await Promise.all(assistants.map((a) => fetch(`${url}/assistants/${a.assistant_id}/schemas`, { headers }).then((res) => res.arrayBuffer())));
}

/** The auth service keeps tokens only with a key; without one `authenticate` answers 501 (test/handlers/control-plane/agentAuth.test.ts). */
export const AUTH_SERVICE = { AGENTPLANE_TOKEN_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' };

/** The development OAuth provider's operations are served (off by default in the test servers: they answer 404 then). */
const DEV_PROVIDER = { AGENTPLANE_DEV_OAUTH: 'on' };

export function defineConformanceSuite(mode: 'mock' | 'real'): void {
  describe(`conformance against ${mode} mode`, () => {
    let server: TestServer | undefined;
    after(async () => {
      await server?.close();
    });
    defineSuiteAgainst({
      mode,
      requireCoverage: true,
      target: async () => {
        // the server's own reply check is off: the suite itself must catch every violation.
        // Deployer phases of 150 ms (a revision is DEPLOYED ~1 s after it is created): the
        // walk redeploys a new revision within milliseconds, before it can have reached
        // DEPLOYED (the documented 400) on any machine, while the fuzzing that follows for a
        // minute finds deployed ones (200); with 5 ms phases a loaded machine sometimes let
        // every revision deploy first and the 400 went unexercised
        server = await startTestServer({
          mock: mode === 'mock',
          exampleGraphs: 'all',
          env: { AGENTPLANE_VALIDATE_RESPONSES: '0', AGENTPLANE_PHASE_MS: '150', ...AUTH_SERVICE, ...DEV_PROVIDER },
        });
        if (mode === 'real') await warmSchemas(server.url, server.key);
        return { url: server.url, key: server.key, mode };
      },
      strict: async () => {
        const strict = await startTestServer({
          mock: mode === 'mock',
          exampleGraphs: 'all',
          env: { AGENTPLANE_VALIDATE_RESPONSES: '0', AGENTPLANE_AGENT_SERVER_AUTH: '1', ...AUTH_SERVICE, ...DEV_PROVIDER },
        });
        return { target: { url: strict.url, key: strict.key, mode }, close: () => strict.close() };
      },
    });
  });
}
