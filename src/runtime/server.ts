// Builds and runs the server on the storage the composition root opened (src/compose): keys,
// handlers (real or mock), the request pipeline on polka, background modules (run workers,
// deployer), and an orderly shutdown.
import { serveProtocolSocket } from './transports/websocket/protocolSocket.ts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RequestIdResponse } from './transports/http/requestIdResponse.ts';
import type { AddressInfo } from 'node:net';
import polka from 'polka';
import { handledOperationIds as controlPlaneIds } from '../../generated/control-plane/operations.gen.ts';
import { handledOperationIds as agentServerIds } from '../../generated/agent-server/operations.gen.ts';
import type { Application, ApplicationFactory, ServerStorage } from './application.ts';
import type { RunningGrpcServer } from './transports/grpc/grpcServer.ts';
import { apiDocuments, loadResponseValidators, rpcDispatcher, rpcDocument, rpcDocumentV1 } from './api.ts';
import { ResponseValidators } from './transports/http/responseValidators.ts';
import { KeyRing, loadKeys, parseKeyDigests, type KeySource } from './security/auth.ts';
import { graphTenantOf, loadTokenKey, type TokenKeySource } from './security/tokenKey.ts';
import type { ServerConfig } from './config.ts';
import { createDashboardRoutes } from './pages/dashboard.ts';
import { createDocsRoutes } from './pages/docs.ts';
import { loadCustomApp } from './project/customRoutes.ts';
import { corsHandler } from './transports/http/cors.ts';
import { disabledOperations } from './transports/http/disabledOperations.ts';
import { loadCustomAuth } from './security/customAuth.ts';
import { installProjectGlobals, projectApiUrl, setProjectApiUrl } from '../shared/projectGlobals.ts';
import path from 'node:path';
import { createLogger, type Logger } from './logging/logger.ts';
import { createPipeline, type Admission, type TransportCall } from './transports/http/pipeline.ts';
import { deferredHandlers } from './deferredHandlers.ts';
import { requestOrigin } from './transports/http/origin.ts';
import { StreamSlots } from './transports/streamSlots.ts';
import { TenantRates } from './security/tenantRates.ts';
import { Metrics } from './metrics/metrics.ts';
import { PACKAGE_VERSION } from './packageRoot.ts';
import { inProcessHandler, type FetchHandler } from './transports/inProcess.ts';

export type { Application, ApplicationFactory, BackgroundModule, ServerDeps, ServerStorage } from './application.ts';

export interface HttpServer {
  url: string;
  port: number;
  http: Server;
  /** Keys the server created on first start (printed once), for tests and the CLI banner. */
  createdKey?: { key: string; tenants: string[] };
  /** Where the auth service's token key came from (never its value), for the start banner. */
  tokenKey: Omit<TokenKeySource, 'key'>;
  close(): Promise<void>;
  /** Loads the project's code again without stopping (agentplane dev); a no-op in mock mode. */
  reload(): Promise<void>;
  /** Settles once the gRPC port serves or will not; never rejects. */
  grpc: Promise<GrpcServing>;
  /** The storage's values nothing has used for `unusedForMs` dropped (ServerStorage.releaseUnused); the bytes dropped. */
  releaseUnused(unusedForMs: number): number;
  /** Answers a Request in process, through the same pipeline as the port (runtime/transports/inProcess.ts). */
  handle: FetchHandler;
}

/** Where a server that does not listen says it is: no such host resolves, so a request sent there over the network fails loudly. */
export const IN_PROCESS_URL = 'http://agentplane.in-process';

/** The gRPC port: serving on `port`, off (not asked for, or nothing to serve), or a port that could not be had. */
export type GrpcServing = { port: number } | { off: true } | { failed: string; named: boolean };

export interface StartOptions {
  /**
   * false: no port is opened (nor gRPC); the server answers only through `handle`, in
   * process (tests of rules that need no socket). Its URL is IN_PROCESS_URL.
   */
  listen?: boolean;
  /**
   * The operationIds served (an area alone, src/compose/area.ts); the others answer 404 as
   * unknown routes do, and need no handler. Default: every operation of the contract.
   */
  operations?: ReadonlySet<string>;
}

/** Starts serving; `storage` is closed when the server stops, or when it cannot start. */
export async function startHttpServer(
  config: ServerConfig,
  storage: ServerStorage,
  createApp: ApplicationFactory,
  log: Logger = createLogger(config.logLevel),
  options: StartOptions = {},
): Promise<HttpServer> {
  // the version run spans name as service.version: the domain's tracer (here and in the run
  // workers, which inherit the environment) reads it from there, not from the package
  process.env.AGENTPLANE_VERSION ??= PACKAGE_VERSION;
  // mock mode reads a keys file already in the data directory but never writes one
  const digests = config.apiKeyDigests ? parseKeyDigests(config.apiKeyDigests) : [];
  const keys = loadKeys({
    apiKeys: config.apiKeys,
    apiKeysFile: config.apiKeysFile,
    dataDir: config.dataDir,
    mock: config.mock,
    digestsGiven: digests.length > 0,
  });
  const keyRing = new KeyRing(keys.entries, digests);
  // the auth service's key and the graphs' tenant: made and found on the embedded default as the API key is
  const tokenKey = loadTokenKey(config);
  config = {
    ...config,
    severalTenants: keyRing.tenantCount() > 1,
    agentAuth: {
      ...config.agentAuth,
      tokenKey: tokenKey.key,
      tokenKeyIsNew: tokenKey.origin === 'created on this start',
      graphTenant: graphTenantOf(config, keys),
    },
  };

  const metrics = new Metrics();
  metrics.gauge('agentplane_store_records', 'Records held by the store, by collection.', ['collection'], () =>
    storage.recordCounts().then((counts) => counts.map(({ collection, count }) => ({ labels: { collection }, value: count }))),
  );
  const projectDir = config.configFile ? path.dirname(config.configFile) : process.cwd();
  /** This server's URL once it listens (where http.app middleware passes API calls on). */
  let listening: string | undefined;
  /** The gRPC port while it serves. */
  let grpcPort: number | null = null;
  // before any of the project's modules load (auth, routes, graphs): they may call getLogger()
  // or build a Client at the top of a module
  installProjectGlobals({ log: (level, message, fields) => log[level](message, fields), apiUrl: projectApiUrl });
  // every reply is checked against its schema; AGENTPLANE_VALIDATE_RESPONSES makes a misfit a
  // 500, and its validators load before the server starts. Otherwise a misfit is only logged,
  // and the validators (~60 ms of compiling) load once the server listens: the replies of its
  // first moments are checked when they arrive, instead of every start waiting for them.
  const replyValidators = new ResponseValidators(config.validateResponses ? (await loadResponseValidators()).http : undefined);
  const customAuth = config.project.auth?.path && !config.mock ? await loadCustomAuth(config.project.auth.path, projectDir) : undefined;
  // The port listens before the application is made (the project's graphs loaded: LangGraph
  // and tsx are most of a start), and requests wait for it (deferredHandlers.ts). Not with the project's own routes (http.app, loaded after the
  // application and in front of every route) nor in mock mode, whose application is quick.
  const listenFirst = !config.mock && !config.project.http?.app;
  const allOperationIds = [...controlPlaneIds, ...agentServerIds];
  const operationIds = options.operations ? allOperationIds.filter((id) => options.operations!.has(id)) : allOperationIds;
  // every operation waits for the application, the health check too: deployers and the
  // Kubernetes readiness probe read a 200 from /ok as serving, its graphs loaded
  const deferred = deferredHandlers(operationIds);
  let http: Server | undefined;
  /** A start that fails leaves the port closed and the store as it found it, unlocked. */
  const refuse = async (err: unknown): Promise<never> => {
    deferred.fail(err);
    if (http?.listening) {
      const closed = new Promise<void>((resolve) => http!.close(() => resolve()));
      // the requests that waited for the application are answered (a 503 naming the cause)
      // before their connections go: their replies are written once the failure reaches them
      await new Promise((resolve) => setImmediate(resolve));
      http.closeAllConnections();
      await closed;
    }
    await storage.close().catch(() => undefined);
    throw err;
  };
  const makeApp = async (): Promise<Application> => {
    // an area refusing to start (the auth service's key missing) leaves the store as it found it, unlocked
    const made: Application = config.mock
      ? await mockApplication(config, log)
      : await createApp({ config, log, metrics, customAuth, grpcPort: () => grpcPort, keyDigestsOf: (tenant) => keyRing.digestsOf(tenant) }).catch(refuse);
    const missing = operationIds.filter((id) => typeof made.handlers[id] !== 'function');
    const known = new Set<string>(allOperationIds);
    const unknown = Object.keys(made.handlers).filter((id) => !known.has(id));
    // the JSON-RPC methods are needed where their operation is served
    const methodsServed = operationIds.includes('a2aRpc');
    const missingMethods = methodsServed ? rpcDocument.methods.map((m) => m.name).filter((name) => typeof made.methods[name] !== 'function') : [];
    if (missing.length || missingMethods.length || unknown.length) {
      const parts = [
        missing.length ? `no handler for operationId(s): ${missing.join(', ')}` : '',
        missingMethods.length ? `no handler for JSON-RPC method(s): ${missingMethods.join(', ')}` : '',
        unknown.length ? `handlers for operationIds the spec does not declare: ${unknown.join(', ')}` : '',
      ].filter(Boolean);
      await refuse(new Error(`refusing to start: ${parts.join('; ')}`));
    }
    deferred.arrive(made.handlers);
    return made;
  };
  const app: Application | undefined = listenFirst ? undefined : await makeApp();

  const disabled = disabledOperations(config.project.http, apiDocuments.find((d) => d.key === 'agent-server')!.operations);
  // the operations of the areas not served are routed nowhere: 404, as unknown routes
  for (const id of allOperationIds) if (!operationIds.includes(id)) disabled.add(id);
  // an agent server deployed by the local deployer serves no control plane of its own
  if (!config.controlPlane) for (const id of controlPlaneIds) disabled.add(id);
  // the development OAuth provider's pages and token endpoint are there only while it is offered
  // (the mock answers them from their examples, as every operation of the contract)
  if (!config.agentAuth.devProvider && !config.mock) for (const id of DEV_PROVIDER_OPERATIONS) disabled.add(id);
  // a queue worker only executes runs: its HTTP port answers the probes and the metrics
  if (config.role === 'queue') for (const id of [...controlPlaneIds, ...agentServerIds]) if (!QUEUE_OPERATIONS.has(id)) disabled.add(id);
  const customApp =
    config.project.http?.app && !config.mock ? await loadCustomApp(config.project.http.app, projectDir, { serverUrl: () => listening }) : undefined;
  // custom auth authenticates the callers of the operations whose `x-auth` is not `public`
  const authenticated = new Set(apiDocuments.flatMap((doc) => doc.operations.filter((op) => op.auth && op.auth !== 'public').map((op) => op.operationId)));
  // the access line's fields are made only where its level is written (LOG_LEVEL=warn: never)
  const accessLog = config.accessLog && log.enabled('info');
  let inFlight = 0;
  let stopping = false;
  let drained: (() => void) | null = null;
  const { handle, socketDoor, admit, endStreams } = createPipeline({
    documents: apiDocuments,
    handlers: deferred.handlers,
    keyRing,
    log,
    maxBodyBytes: config.maxBodyBytes,
    streamSlots: new StreamSlots(config.maxStreamsPerClient, config.maxStreams),
    socketSlots: new StreamSlots(config.maxStreamsPerClient, config.maxStreams),
    // the agent server's operations (A2A's among them) and the control plane's, one count per tenant: a flooding
    // tenant is slowed before it costs the others (4,700 deployments in 25 s took the server as threads did)
    tenantRates: { rates: new TenantRates(config.maxRequestsPerSecond, config.maxRequestBurst), documents: ['agent-server', 'control-plane'] },
    maxBodyDepth: config.maxBodyDepth,
    publicUrl: config.publicUrl,
    trustProxy: config.trustProxy,
    disabled,
    requireAuthEverywhere: config.agentServerAuth,
    responseValidators: replyValidators,
    strictReplies: config.validateResponses,
    extra: extraRoutes(
      createDocsRoutes((req) => config.publicUrl ?? requestOrigin(req.headers, config.trustProxy)),
      createDashboardRoutes({ redirectRoot: !customApp, mock: config.mock }),
    ),
    customApp,
    cors: corsHandler(config.project.http?.cors),
    customAuth,
    customAuthFor: (operationId) => authenticated.has(operationId),
    // the request's end, told once by the pipeline's one 'close' listener: a second listener of
    // the server's own (a closure, and Node's once-wrapper, per request) did the bookkeeping before
    observe: (answered) => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
      metrics.observeRequest(answered.operationId, answered.method, answered.status, answered.seconds);
      if (accessLog) log.access(answered);
    },
  });

  // polka carries the HTTP layer; the pipeline behind its single middleware does the
  // contract routing, so polka's own route table stays one entry long.
  const web = polka().use((req, res) => {
    inFlight += 1;
    // a request on a kept-alive connection while the server stops is its last on that connection
    // (one in process too: its response is not of the class below)
    if (stopping) res.setHeader('Connection', 'close');
    // counted down by observe above, when the response closes
    void handle(req, res);
  });
  // answers of class RequestIdResponse: their X-Request-Id goes out with the rest of the head;
  // and an answer whose head is written once the stop has begun (a request taken before it) is
  // its connection's last. A set of every response in flight, kept for the stop to mark them,
  // cost each request an add and a delete by the response's hash.
  class Answer<Request extends IncomingMessage = IncomingMessage> extends RequestIdResponse<Request> {
    protected override lastOnConnection(): boolean {
      return stopping;
    }
  }
  const httpServer = createServer({ ServerResponse: Answer }, web.handler as never);
  http = httpServer;
  httpServer.keepAliveTimeout = 65_000;
  // the protocol's WebSocket: admitted as REST is, served in process by the same handlers (runtime/transports/websocket/protocolSocket.ts)
  const sockets = serveProtocolSocket(httpServer, socketDoor, { maxMessageBytes: config.maxBodyBytes, idleMs: config.socketIdleSeconds * 1000 });
  const listen = options.listen !== false;
  if (listen) {
    try {
      await new Promise<void>((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(config.port, config.host, () => resolve());
      });
    } catch (err) {
      await refuse(listenError(err as NodeJS.ErrnoException, config));
    }
  }
  const address = listen ? (httpServer.address() as AddressInfo) : undefined;
  const host = address?.family === 'IPv6' ? `[${address.address}]` : address?.address;
  const url = address ? `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:${address.port}` : IN_PROCESS_URL;
  // the project's clients without a URL reach this server, before any run starts (and before its graphs load)
  if (listen) setProjectApiUrl(url);
  listening = url;
  const started = app ?? (await makeApp());
  // the application took the key (no tokens sealed under another): from now on it is kept
  tokenKey.save?.();
  for (const module of started.modules) await module.start?.();
  storage.serving?.();
  // prom-client (~40 ms of this thread) loads once the application answers; a scrape waits for it
  void metrics.load().catch((err: unknown) => log.error('the metrics registry did not load; /metrics cannot answer', { err }));
  if (!config.validateResponses) {
    void loadResponseValidators().then(
      (loaded) => replyValidators.arrive(loaded.http),
      (err: unknown) => log.warn('the response validators did not load; replies are not checked', { err }),
    );
  }
  for (const warning of config.projectWarnings) log.warn(warning);
  logKeys(keys, log);
  if (tokenKey.origin !== 'AGENTPLANE_TOKEN_KEY' && tokenKey.origin !== 'none')
    log.info('token key of the auth service', { from: tokenKey.origin, file: tokenKey.file, graphTenant: config.agentAuth.graphTenant });
  if (config.projectEnv.length) log.info('environment from the project file', { file: config.configFile, variables: config.projectEnv });
  log.info(listen ? 'agentplane listening' : 'agentplane answering in process', {
    url,
    dashboard: `${url}/dashboard`,
    docs: `${url}/docs`,
    mode: config.mock ? 'mock' : 'real',
    dataDir: config.mock ? null : config.dataDir,
    store: storage.kind,
    keys: keys.origin,
    ...(storage.replicaId ? { replica_id: storage.replicaId } : {}),
  });

  // after the HTTP port: loading gRPC and the proto takes longer than the rest of a start, and
  // the card lists the gRPC interface only from the moment it serves
  const grpc = (listen ? serveGrpc(started, config, admit, log) : Promise.resolve({ off: true as const })).then((serving) => {
    if ('gateway' in serving) grpcPort = serving.gateway.port;
    return serving;
  });

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      stopping = true;
      const serving = await grpc;
      grpcPort = null;
      if ('gateway' in serving) await serving.gateway.close();
      // (a server that never listened says so to the callback, and is as stopped)
      const stopped = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeIdleConnections();
      // a stream never finishes by itself, and its client resumes it from the last event it
      // got: streams end now, with what was ready, and WebSockets are told the server is going
      // (an open WebSocket held the close until the process was killed); what is being answered
      // now is its connection's last answer (Answer above)
      endStreams();
      sockets.goingAway();
      if (inFlight > 0) {
        // give in-flight requests a moment to finish, then cut what is left
        await settledWithin(new Promise<void>((resolve) => (drained = resolve)), 5_000);
      }
      httpServer.closeAllConnections();
      sockets.terminate();
      await stopped;
      for (const module of [...started.modules].reverse()) await module.stop?.();
      await storage.close();
      log.info('agentplane stopped');
    })());

  const reload = async () => {
    await started.reload?.();
  };
  return {
    url,
    port: address?.port ?? 0,
    http: httpServer,
    handle: inProcessHandler(web.handler as never),
    createdKey: keys.created,
    tokenKey: { origin: tokenKey.origin, file: tokenKey.file },
    close,
    reload,
    grpc: grpc.then((serving) => ('gateway' in serving ? { port: serving.gateway.port } : serving)),
    releaseUnused: (unusedForMs) => storage.releaseUnused?.(unusedForMs) ?? 0,
  };
}

/**
 * Serves the application's gRPC service on config.grpcPort. The default port (50051) taken — by
 * a second server on the machine, say — is left for a free one, which the card and the banner
 * name. A port that cannot be had is said in one line of the log; the CLI stops when the port
 * was named (as for the HTTP port) and otherwise serves on without gRPC.
 */
async function serveGrpc(
  app: Application,
  config: ServerConfig,
  admit: (call: TransportCall) => Promise<Admission>,
  log: Logger,
): Promise<{ gateway: RunningGrpcServer } | { off: true } | { failed: string; named: boolean }> {
  if (!app.grpc || config.grpcPort === null) return { off: true };
  const grpc = app.grpc;
  const where = (port: number) => `${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  const { startGrpcServer } = await import('./transports/grpc/grpcServer.ts');
  const serveOn = (port: number) =>
    startGrpcServer(
      { protoFile: grpc.protoFile, service: grpc.service, methods: grpc.methods(admit) },
      { host: config.host, port, maxMessageBytes: config.maxBodyBytes },
    );
  try {
    let gateway: RunningGrpcServer;
    try {
      gateway = await serveOn(config.grpcPort);
    } catch (err) {
      if (config.grpcPortNamed || config.grpcPort === 0 || !inUse(err)) throw err;
      gateway = await serveOn(0);
      log.info(`gRPC's default port ${config.grpcPort} is in use (another server on this machine?); A2A gRPC takes a free port instead`, {
        port: gateway.port,
      });
    }
    log.info('A2A gRPC listening', { address: where(gateway.port), service: grpc.service });
    return { gateway };
  } catch (err) {
    const why = inUse(err) ? 'the port is already in use' : (err as Error).message;
    const failed = `cannot serve gRPC on ${where(config.grpcPort)}: ${why}`;
    if (config.grpcPortNamed) log.error(`${failed}; pick another port with --grpc-port <n> or AGENTPLANE_GRPC_PORT=<n> (0 picks a free one, off serves none)`);
    else log.warn(`${failed}; serving without gRPC (name a port with --grpc-port <n>, or turn it off with --grpc-port off)`);
    return { failed, named: config.grpcPortNamed };
  }
}

/** grpc-js says a taken port only inside its message ("… EADDRINUSE …"). */
const inUse = (err: unknown) => /EADDRINUSE/.test((err as Error)?.message ?? '');

/** What a person can do when the port cannot be had: which address, and how to pick another. */
function listenError(err: NodeJS.ErrnoException, config: ServerConfig): Error {
  const where = `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
  const pick = 'pick another port with --port <n> or PORT=<n> (0 picks a free one)';
  if (err.code === 'EADDRINUSE')
    return new Error(`cannot listen on ${where}: the port is already in use (another agentplane, or another program, listens there); stop it or ${pick}`);
  if (err.code === 'EACCES') return new Error(`cannot listen on ${where}: permission denied (ports below 1024 need privileges); ${pick}`);
  if (err.code === 'EADDRNOTAVAIL')
    return new Error(
      `cannot listen on ${where}: this machine has no address ${config.host}; choose another with --host <address> or HOST=<address> (0.0.0.0 listens on all)`,
    );
  return new Error(`cannot listen on ${where}: ${err.message}`);
}

/** Which keys are in force and where from (never their values), and the key files a setting overrides. */
function logKeys(keys: KeySource, log: Logger): void {
  const tenants = new Set(keys.entries.flatMap((e) => e.tenants));
  log.info('API keys in force', { count: keys.entries.length, tenants: tenants.size, from: keys.origin, ...(keys.file ? { file: keys.file } : {}) });
  for (const file of keys.ignored) {
    log.warn(
      `${keys.origin} is set, so the keys in ${file} are not in force (a key printed on an earlier first start does not work, and data made with it is out of view); unset ${keys.origin} to use them`,
      { file },
    );
  }
}

/** Loaded only in mock mode: openapi-backend's mocker weighs on every start otherwise. */
async function mockApplication(config: ServerConfig, log: Logger): Promise<Application> {
  const { createMockHandlers, createMockMethods } = await import('./mock/producer.ts');
  const methods = createMockMethods(rpcDocument.document);
  const framing = { validateResults: config.validateResponses, log, maxDepth: config.maxBodyDepth };
  // each A2A version answers from its own document: v1.0's methods (SendMessage, …) from a2a-v1's
  const methodsV1 = createMockMethods(rpcDocumentV1.document);
  const dispatchers = {
    '0.3': await rpcDispatcher(methods, framing),
    '1.0': await rpcDispatcher(methodsV1, framing, 'a2a-v1', { streamErrorsAsJson: true }),
  };
  const { mockA2AGrpc } = await import('./mock/grpc.ts');
  return { handlers: await createMockHandlers(apiDocuments, dispatchers), methods, modules: [], grpc: mockA2AGrpc(methodsV1) };
}

/** The development OAuth provider's operations (AGENTPLANE_DEV_OAUTH). */
const DEV_PROVIDER_OPERATIONS = ['devAuthorize', 'devConsent', 'devToken'];

/** The routes outside the contract (docs, spec files, dashboard), first match wins. */
type ExtraRoutes = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

/** What a queue worker (AGENTPLANE_ROLE=queue) answers: liveness/readiness and metrics. */
const QUEUE_OPERATIONS: ReadonlySet<string> = new Set(['health', 'getMetrics']);

const extraRoutes =
  (...routes: ExtraRoutes[]): ExtraRoutes =>
  (req, res, pathname) =>
    routes.some((route) => route(req, res, pathname));

/**
 * Waits for `done`, or `ms` at most. The timer keeps the process up meanwhile (an unref'd one
 * let a stop's promise hang, never settled, once nothing else was left to wait on), and is
 * cleared as soon as `done` settles, so it keeps nothing up after.
 */
function settledWithin(done: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([
    done.then(
      () => undefined,
      () => undefined,
    ),
    limit,
  ]).finally(() => clearTimeout(timer));
}
