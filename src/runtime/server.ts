// Builds and runs the server: store, keys, handlers (real or mock), the request pipeline on
// polka, background modules (run workers, deployer), and an orderly shutdown.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import polka from 'polka';
import { handledOperationIds as controlPlaneIds } from '../../generated/control-plane/operations.gen.ts';
import { handledOperationIds as agentServerIds } from '../../generated/agent-server/operations.gen.ts';
import type { AppFactory, Application } from './application.ts';
import { apiDocuments, loadResponseValidators, rpcDocument } from './api.ts';
import { KeyRing, loadKeys } from './auth.ts';
import type { ServerConfig } from './config.ts';
import { createDocsRoutes } from './docs.ts';
import { loadCustomApp } from './customRoutes.ts';
import path from 'node:path';
import { JsonRpcDispatcher } from './jsonrpc.ts';
import { createLogger, type Logger } from './logger.ts';
import { createPipeline } from './pipeline.ts';
import { openJournalStore } from './store/journalStore.ts';
import { Metrics } from './metrics.ts';
import type { Store } from './store/types.ts';

export type { AppFactory, AppFactoryDeps, Application, BackgroundModule } from './application.ts';

export interface RunningServer {
  url: string;
  port: number;
  http: Server;
  store: Store;
  /** Keys the server created on first start (printed once), for tests and the CLI banner. */
  createdKey?: { key: string; tenants: string[] };
  close(): Promise<void>;
}

export async function startServer(config: ServerConfig, createApp: AppFactory, log: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  const store = await openJournalStore({ dataDir: config.mock ? null : config.dataDir, fsync: config.env.AGENTPLANE_FSYNC === '1' });
  const keys = loadKeys({ apiKeys: config.apiKeys, apiKeysFile: config.apiKeysFile, dataDir: config.mock ? null : config.dataDir });
  const keyRing = new KeyRing(keys.entries);

  const metrics = new Metrics();
  metrics.gauge('agentplane_store_records', 'Records held by the store, by collection.', ['collection'], () =>
    Promise.all(store.collectionNames().map(async (collection) => ({ labels: { collection }, value: await store.collection(collection).count() }))),
  );
  const app: Application = config.mock ? await mockApplication() : await createApp({ config, store, log, metrics });

  const missing = [...controlPlaneIds, ...agentServerIds].filter((id) => typeof app.handlers[id] !== 'function');
  const known = new Set<string>([...controlPlaneIds, ...agentServerIds]);
  const unknown = Object.keys(app.handlers).filter((id) => !known.has(id));
  const validators = config.validateResponses ? await loadResponseValidators() : undefined;
  const dispatcher = new JsonRpcDispatcher({
    methods: rpcDocument.methods,
    params: rpcDocument.params,
    handlers: app.methods,
    results: validators?.rpc,
    onResultViolation: (method, issues) => log.error('JSON-RPC result violates the spec', { method, issues }),
  });
  const missingMethods = dispatcher.missingHandlers();
  if (missing.length || missingMethods.length || unknown.length) {
    await store.close();
    const parts = [
      missing.length ? `no handler for operationId(s): ${missing.join(', ')}` : '',
      missingMethods.length ? `no handler for JSON-RPC method(s): ${missingMethods.join(', ')}` : '',
      unknown.length ? `handlers for operationIds the spec does not declare: ${unknown.join(', ')}` : '',
    ].filter(Boolean);
    throw new Error(`refusing to start: ${parts.join('; ')}`);
  }

  const disabled = new Set<string>([...(config.project.http?.disable_a2a ? ['a2aRpc', 'getAgentCard'] : []), ...(config.project.http?.disable_mcp ? ['mcpRpc'] : [])]);
  const handle = createPipeline({
    documents: apiDocuments,
    handlers: app.handlers,
    dispatchers: { a2a: dispatcher },
    keyRing,
    log,
    maxBodyBytes: config.maxBodyBytes,
    publicUrl: config.publicUrl,
    disabled,
    requireAuthEverywhere: config.agentServerAuth,
    responseValidators: validators?.http,
    extra: createDocsRoutes(),
    fallback: config.project.http?.app && !config.mock ? await loadCustomApp(config.project.http.app, config.configFile ? path.dirname(config.configFile) : process.cwd()) : undefined,
    observe: (operationId, method, status, seconds) => metrics.observeRequest(operationId, method, status, seconds),
  });

  let inFlight = 0;
  let drained: (() => void) | null = null;
  const logRequests = log.enabled('debug');
  // polka carries the HTTP layer; the pipeline behind its single middleware does the
  // contract routing, so polka's own route table stays one entry long.
  const web = polka().use((req, res) => {
    inFlight += 1;
    const started = logRequests ? performance.now() : 0;
    res.once('close', () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
      if (logRequests) log.debug('request', { method: req.method, path: req.url, status: res.statusCode, ms: Math.round((performance.now() - started) * 10) / 10 });
    });
    void handle(req, res);
  });
  const http: Server = createServer(web.handler as never);
  http.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.port, config.host, () => resolve());
  });
  for (const module of app.modules) await module.start?.();
  const address = http.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}`;
  for (const warning of config.projectWarnings) log.warn(warning);
  if (config.projectEnv.length) log.info('environment from the project file', { file: config.configFile, variables: config.projectEnv });
  log.info('agentplane listening', { url, mode: config.mock ? 'mock' : 'real', dataDir: config.mock ? null : config.dataDir, keys: keys.origin });

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      if (inFlight > 0) {
        // give in-flight requests a moment to finish, then cut long-lived streams
        await Promise.race([new Promise<void>((resolve) => (drained = resolve)), delay(5_000)]);
      }
      http.closeAllConnections();
      await stopped;
      for (const module of [...app.modules].reverse()) await module.stop?.();
      await store.close();
      log.info('agentplane stopped');
    })());

  return { url, port: address.port, http, store, createdKey: keys.created, close };
}

/** Loaded only in mock mode: openapi-backend's mocker weighs on every start otherwise. */
async function mockApplication(): Promise<Application> {
  const { createMockHandlers, createMockMethods } = await import('./mock/producer.ts');
  return { handlers: (await createMockHandlers(apiDocuments)) as unknown as Application['handlers'], methods: createMockMethods(rpcDocument.document), modules: [] };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
