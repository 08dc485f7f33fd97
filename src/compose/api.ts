// Composed areas served in process through the server's own pipeline (matching, auth, body
// limits, validation, serialisation, the reply checks), with no socket: what Hono's
// app.request() is to a Hono app. The operations of areas not given answer 404 as unknown
// routes do.
import type { Store } from '../domain/ports/store.ts';
import { areaOperations, mergeAreas, type Area, type AreaPorts } from './area.ts';
import { startHttpServer } from '../runtime/server.ts';
import type { FetchHandler } from '../runtime/transports/inProcess.ts';

export interface Api {
  /** A Request answered through the pipeline. */
  handle: FetchHandler;
  /** fetch's signature over `handle`: a bare path is on the API's own origin. */
  request(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Stops the areas' modules and closes the ports' storage. */
  close(): Promise<void>;
}

/** The API keys callers present: `key:tenant[,key:tenant…]`, as AGENTPLANE_API_KEYS. */
export interface ApiAuth {
  apiKeys: string;
}

export async function createApi(areas: Area | readonly Area[], ports: AreaPorts & { close?(): Promise<void> }, auth: ApiAuth): Promise<Api> {
  const list = Array.isArray(areas) ? (areas as readonly Area[]) : [areas as Area];
  const served = new Set(list.flatMap((area) => areaOperations(area.name)));
  const storage = {
    kind: 'embedded',
    recordCounts: () => recordCounts(ports.store),
    close: async () => ports.close?.(),
  };
  const config = { ...ports.config, apiKeys: auth.apiKeys, apiKeysFile: null };
  const server = await startHttpServer(config, storage, async () => mergeAreas(list), ports.log, { listen: false, operations: served });
  const request = (input: string | URL | Request, init?: RequestInit) =>
    server.handle(new Request(typeof input === 'string' && input.startsWith('/') ? server.url + input : input, init));
  return { handle: server.handle, request, close: server.close };
}

function recordCounts(store: Store) {
  return Promise.all(store.collectionNames().map(async (collection) => ({ collection, count: await store.collection(collection).count() })));
}
