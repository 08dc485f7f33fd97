// The agent server alone (the API the LangGraph SDK speaks) for a describe block with an SDK
// client on it, answering in process (the client sends through the app's fetch), made before
// its tests and closed after them.
import { after, before } from 'node:test';
import { Client } from '@langchain/langgraph-sdk';
import type { InProcessApp, TestServerOptions } from './server.ts';
import { areaApp } from './area.ts';

export interface ServedClient {
  server: InProcessApp;
  client: Client;
}

/** Call inside `describe`: the returned object is filled in before the first test runs. */
export function serveWithClient(options: TestServerOptions): ServedClient {
  const served = {} as ServedClient;
  before(async () => {
    served.server = await areaApp('agent-server', options);
    served.client = new Client({ apiUrl: served.server.url, callerOptions: { maxRetries: 0, fetch: served.server.fetch } });
  });
  after(() => served.server.close());
  return served;
}
