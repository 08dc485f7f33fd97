// The conformance suite against an agentplane the test starts itself (real or mock mode),
// with a second one requiring keys everywhere for the credential probes.
import { after, describe } from 'node:test';
import { startTestServer, type TestServer } from '../support/server.ts';
import { defineSuiteAgainst } from './lib/suite.ts';

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
        server = await startTestServer({ mock: mode === 'mock', env: { AGENTPLANE_VALIDATE_RESPONSES: '0', AGENTPLANE_PHASE_MS: '150' } });
        return { url: server.url, key: server.key, mode };
      },
      strict: async () => {
        const strict = await startTestServer({ mock: mode === 'mock', env: { AGENTPLANE_VALIDATE_RESPONSES: '0', AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
        return { target: { url: strict.url, key: strict.key, mode }, close: () => strict.close() };
      },
    });
  });
}
