// A test server for a describe block with a LangGraph SDK client on it, started before its
// tests and closed after them.
import { after, before } from 'node:test';
import { Client } from '@langchain/langgraph-sdk';
import { startTestServer, type TestServer, type TestServerOptions } from './server.ts';

export interface ServedClient {
  server: TestServer;
  client: Client;
}

/** Call inside `describe`: the returned object is filled in before the first test runs. */
export function serveWithClient(options: TestServerOptions): ServedClient {
  const served = {} as ServedClient;
  before(async () => {
    served.server = await startTestServer(options);
    served.client = new Client({ apiUrl: served.server.url, callerOptions: { maxRetries: 0 } });
  });
  after(() => served.server.close());
  return served;
}
