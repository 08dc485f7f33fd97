// Configuration: CLI flags win over environment variables, which win over defaults.
// The project file (agentplane.json) names the graphs and the HTTP switches.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { LogLevel } from './logging/logger.ts';
import { imageNamespaces } from './security/imageNamespaces.ts';
import { DEFAULT_MAX_BODY_DEPTH } from './transports/http/requestBody.ts';
import {
  EXAMPLES_PROJECT_FILE,
  NO_PROJECT_NEXT_STEPS,
  PROJECT_FILE_NAMES,
  applyProjectEnv,
  discoverProjectFile,
  readProjectFile,
  type ProjectFile,
} from './project/project.ts';

/** The project file's contents (spec/project.schema.json). */
export type ProjectConfig = ProjectFile;

export interface ServerConfig {
  port: number;
  /**
   * The A2A gRPC binding's port (--grpc-port / AGENTPLANE_GRPC_PORT; 0 picks a free one, `off`
   * serves none): null when off. Default 50051 (a free one when it is taken: server.ts), or 0 beside an HTTP port of 0 (tests).
   */
  grpcPort: number | null;
  /** Whether the gRPC port was named (flag or variable): a named port that cannot be had stops the start; the default one, taken, is left for a free one. */
  grpcPortNamed: boolean;
  host: string;
  /** null keeps all state in memory (tests, mock mode without --data). */
  dataDir: string | null;
  configFile: string | null;
  project: ProjectConfig;
  /** Warned about at start: unknown keys, ignored upstream keys, no graphs, version mismatches. */
  projectWarnings: string[];
  /** Names of the variables the project file's `env` set (logged at start, values never). */
  projectEnv: string[];
  mock: boolean;
  /** Base URL used in links the server hands out (agent cards); otherwise the request's Host. */
  publicUrl: string | null;
  /** Signs the v1.0 agent cards (AGENTPLANE_A2A_SIGNING_KEY: a PKCS#8 PEM or private JWK; _KEY_ID, _ALG, _JKU). */
  a2aSigning: { key: string; kid: string; alg: string; jku?: string; published?: string } | null;
  /** Without a public URL, honour Forwarded / X-Forwarded-Proto / X-Forwarded-Host (AGENTPLANE_TRUST_PROXY=1); off, only Host. */
  trustProxy: boolean;
  maxBodyBytes: number;
  /** Streaming requests one client (tenant, else peer address) may hold open (AGENTPLANE_MAX_STREAMS_PER_CLIENT, default 100). */
  maxStreamsPerClient: number;
  /** Streaming requests the server holds open in all (AGENTPLANE_MAX_STREAMS, default 1000). */
  maxStreams: number;
  /**
   * A protocol WebSocket with no subscription that sends nothing for this long is closed, and
   * a peer that answers no ping for this long is cut (AGENTPLANE_SOCKET_IDLE_SECONDS, default 60).
   */
  socketIdleSeconds: number;
  /**
   * What one tenant (agent-server auth on) may hold: threads (AGENTPLANE_MAX_THREADS_PER_TENANT,
   * default 10000), crons (AGENTPLANE_MAX_CRONS_PER_TENANT, default 100), store items
   * (AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT, default 100000) and their bytes together
   * (AGENTPLANE_MAX_STORE_BYTES_PER_TENANT, default 1 GiB), runs pending or running
   * (AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT, default 1000); and of the control plane (every tenant):
   * listeners (AGENTPLANE_MAX_LISTENERS_PER_TENANT, default 20) and OAuth providers
   * (AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT, default 100); see domain/tenantQuotas.ts.
   */
  tenantQuotas: { threads: number; crons: number; storeItems: number; storeBytes: number; runsInFlight: number; listeners: number; authProviders: number };
  /**
   * The fewest seconds between two firings of one tenant's cron (AGENTPLANE_MIN_CRON_INTERVAL_S,
   * 1 to 60, default 60: five-field schedules, and six-field ones whose seconds field names one
   * second); domain/crons/schedule.ts.
   */
  minCronIntervalSeconds: number;
  /** Requests a second one tenant may send to the agent server (agent-server auth on; AGENTPLANE_MAX_REQUESTS_PER_SECOND, default 100: docs/security.md says why). */
  maxRequestsPerSecond: number;
  /** How many requests a tenant may send at once on top of its rate (AGENTPLANE_MAX_REQUEST_BURST, default 250: a client's 200 calls at once, as A2A clients send them, are let in). */
  maxRequestBurst: number;
  /** How deeply a request body may nest objects and arrays (AGENTPLANE_MAX_BODY_DEPTH, default 100). */
  maxBodyDepth: number;
  validateResponses: boolean;
  logLevel: LogLevel;
  /** One info line per answered request (method, path, status, ms, request id, operationId). */
  accessLog: boolean;
  /** `key:tenant-uuid,...`; a key listed with several tenants spans them. */
  apiKeys: string | null;
  apiKeysFile: string | null;
  /**
   * Keys by their SHA-256 (`sha256-hex:tenant-uuid,...`, AGENTPLANE_API_KEY_DIGESTS): what the
   * control plane gives a server it deploys, the deployment's tenant's keys without the keys.
   * Set, agent-server auth is on whatever the project file says.
   */
  apiKeyDigests: string | null;
  /**
   * Servers the control plane deploys (local, container, kube-local, kubernetes) answer their
   * tenant's API keys only, given by digest, so the tenant's quotas bind there
   * (AGENTPLANE_DEPLOYMENT_AUTH, on by default; 0 turns it off).
   */
  deploymentAuth: boolean;
  /** Require API keys on agent-server and A2A routes too (off like the upstream dev server). */
  agentServerAuth: boolean;
  /** fsync every journal write (AGENTPLANE_FSYNC=1). */
  fsync: boolean;
  /** MB of heap the paged values (threads, runs, checkpoints) the embedded store keeps in memory once read or written may take (AGENTPLANE_STORE_CACHE_MB, default 64). */
  storeCacheMb: number;
  /** PostgreSQL connection URL (DATABASE_URL / --database); null keeps the embedded store. */
  databaseUrl: string | null;
  /** Connections in the PostgreSQL pool (AGENTPLANE_DATABASE_POOL, default 10). */
  databasePool: number;
  /** How many runs execute at once (AGENTPLANE_MAX_CONCURRENT_RUNS, default 10: upstream's `--n-jobs-per-worker` / N_JOBS_PER_WORKER). */
  maxConcurrentRuns: number;
  /**
   * The most of those slots one tenant's runs hold at once (AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT,
   * default all but one, at least 1): another tenant's run finds a slot free (domain/agent/runs/runFairShare.ts).
   */
  maxRunSlotsPerTenant: number;
  /**
   * Whether the server's keys act for more than one tenant (set at start from them, runtime/server.ts):
   * the tenants' shares of the run slots and workers bind only then, a server deployed for one
   * tenant keeps every slot and worker for it.
   */
  severalTenants?: boolean;
  /** Read the graphs' TypeScript types for their schemas in the background once the server has listened and is idle, and after a reload (AGENTPLANE_SCHEMA_WARMUP, default on; the test servers turn it off). */
  schemaWarmup: boolean;
  /** Start a run worker (the project's graphs loaded in it) as the server starts, so the first run finds one ready (AGENTPLANE_RUN_WORKER_WARMUP, default on; with run workers only). */
  runWorkerWarmup: boolean;
  /** Worker threads that execute graphs (AGENTPLANE_RUN_WORKERS, default: the number of cores); 0 runs them on the request loop. */
  runWorkers: number;
  /** A run still executing after this long ends in `timeout` (AGENTPLANE_RUN_TIMEOUT_S, default 3600 as upstream's BG_JOB_TIMEOUT_SECS); 0: no limit. */
  runTimeoutMs: number;
  /** A run in a run worker without progress this long (no event, checkpoint, store call, heartbeat) ends `error`, its worker replaced (AGENTPLANE_RUN_STALL_TIMEOUT_S, default 300; run-workers/runWorkerPool.ts); 0: never. */
  runStallMs: number;
  /** Replicas on PostgreSQL: the longest database outage a run's claim survives (AGENTPLANE_RUN_LEASE_S; see domain/agent/runs/runLease.ts). */
  runLeaseMs: number;
  /** Heap limit of each run worker in MB (AGENTPLANE_RUN_WORKER_MEMORY_MB); null: Node's default. */
  runWorkerMemoryMb: number | null;
  /** How long each phase of the simulated deployer lasts (AGENTPLANE_PHASE_MS, default 100). */
  phaseMs: number;
  /** Which deployer drives revisions (AGENTPLANE_DEPLOYER, else the project file's `deployer`): `simulated` (default), `local`, `container`, `kubernetes` or `kube-local`. */
  deployer: 'simulated' | 'local' | 'container' | 'kubernetes' | 'kube-local';
  /** The Kubernetes deployers' settings: the namespace of every deployment no listener deploys (AGENTPLANE_KUBE_NAMESPACE, default `default`; a tenant never chooses it), its PostgreSQL's image (AGENTPLANE_KUBE_POSTGRES_IMAGE, default `postgres:16`). */
  kube: { namespace: string; postgresImage: string };
  /** The local deployer's time limit for each build command (AGENTPLANE_BUILD_TIMEOUT_S, default 600). */
  buildTimeoutMs: number;
  /**
   * What each tenant's deployments may run, on every deployer (domain/control-plane/workloadPolicy.ts):
   * the registry namespaces of their images (AGENTPLANE_IMAGE_NAMESPACES, default `*`: any registry
   * but this machine's storage; imageNamespaces.ts), the CSI drivers of their volumes
   * (AGENTPLANE_CSI_DRIVERS, comma-separated, default none), the replicas of one deployment
   * (AGENTPLANE_MAX_REPLICAS, default 10), the bytes of its annotations (AGENTPLANE_MAX_ANNOTATION_BYTES,
   * default 262144, Kubernetes' own bound) and of its resource_spec (AGENTPLANE_MAX_RESOURCE_SPEC_BYTES, default 524288),
   * the deployments one tenant holds (AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT, default 100) and the replicas
   * they ask for together (AGENTPLANE_MAX_REPLICAS_PER_TENANT, default 200), and the revisions one
   * deployment holds (AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT, default 1000).
   */
  workloadPolicy: {
    imageNamespaces: Record<string, string[]>;
    csiDrivers: string[];
    maxReplicas: number;
    maxAnnotationBytes: number;
    maxResourceSpecBytes: number;
    maxDeploymentsPerTenant: number;
    maxReplicasPerTenant: number;
    maxRevisionsPerDeployment: number;
  };
  /** How long a deployed agent server has to answer /ok (AGENTPLANE_DEPLOY_TIMEOUT_S, default 120). */
  deployTimeoutMs: number;
  /** What separates the local deployer's deployments (AGENTPLANE_DEPLOYER_ISOLATION): `user` per deployment, `none`, or `auto` (user when run as root). */
  deployerIsolation: 'auto' | 'user' | 'none';
  /** Where the local deployer makes each deployment's workspace (AGENTPLANE_DEPLOYMENTS_DIR); null: beside the data directory. */
  deploymentsDir: string | null;
  /** A listener not heard from for this long leaves its deployments UNKNOWN (AGENTPLANE_LISTENER_TIMEOUT_S, default 60). */
  listenerTimeoutMs: number;
  /**
   * The auth service: the key tokens are sealed with (AGENTPLANE_TOKEN_KEY, 32 bytes as hex or
   * base64), earlier keys still opening them (AGENTPLANE_TOKEN_KEY_PREVIOUS, comma-separated),
   * whether authorization servers may be reached over plain http (AGENTPLANE_AUTH_ALLOW_HTTP), the
   * non-public ranges it may reach (AGENTPLANE_AUTH_ALLOWED_NETWORKS, comma-separated CIDR), and
   * the tenant whose providers graphs use when their runs have none (AGENTPLANE_AGENT_AUTH_TENANT),
   * and whether the development OAuth provider stands in for providers not configured
   * (AGENTPLANE_DEV_OAUTH; on by default only where nobody else can reach the server: see devProviderDefault).
   */
  agentAuth: {
    tokenKey: string | null;
    /** The token key was made on this start (no key was set or kept): it opens no token stored before. */
    tokenKeyIsNew?: boolean;
    previousTokenKeys: string[];
    allowHttp: boolean;
    allowedNetworks: string[];
    graphTenant: string | null;
    devProvider: boolean;
  };
  /** Serve the control plane (AGENTPLANE_CONTROL_PLANE, default on); off, its operations are 404 and no deployer runs. */
  controlPlane: boolean;
  /** What this process does (AGENTPLANE_ROLE): `server` (default) everything; `queue` only executes runs claimed from the shared PostgreSQL, serving /ok and /metrics. */
  role: 'server' | 'queue';
  /**
   * Config and context of the system assistants by graph id (LANGGRAPH_CONFIG, a JSON object
   * `{"<graph>": {"configurable": …, "context": …}}`, as upstream reads it; the project file's
   * `env` may set it).
   */
  systemAssistantConfig: Record<string, Record<string, unknown>>;
  /** The environment as read (the project file's `env` applied), for reloading the project. */
  env: Record<string, string | undefined>;
}

export function loadConfig(argv: string[] = [], env: Record<string, string | undefined> = process.env, cwd = process.cwd()): ServerConfig {
  const { values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      'grpc-port': { type: 'string' },
      host: { type: 'string' },
      data: { type: 'string' },
      database: { type: 'string' },
      config: { type: 'string' },
      mock: { type: 'boolean' },
      memory: { type: 'boolean' },
      examples: { type: 'boolean' },
      // agentplane dev: serve without watching the project
      'no-reload': { type: 'boolean' },
    },
  });
  const examples = values.examples || flag('AGENTPLANE_EXAMPLES', env.AGENTPLANE_EXAMPLES, false);
  const givenConfig = values.config ?? env.AGENTPLANE_CONFIG;
  if (examples && givenConfig)
    throw new Error(
      `--examples (AGENTPLANE_EXAMPLES) serves the shipped example project; it cannot be combined with --config / AGENTPLANE_CONFIG (${givenConfig})`,
    );
  // with --examples a project file of the working directory is not read (said at start)
  const ownFile = discoverProjectFile(givenConfig, cwd);
  const configFile = examples ? EXAMPLES_PROJECT_FILE : ownFile;
  const namedBy = examples
    ? 'the shipped examples, named by --examples'
    : values.config
      ? 'named by --config'
      : env.AGENTPLANE_CONFIG
        ? 'named by AGENTPLANE_CONFIG'
        : `found in ${cwd}; --config or AGENTPLANE_CONFIG names another`;
  const loaded = configFile ? readProjectFile(configFile, namedBy) : null;
  const project: ProjectConfig = loaded?.project ?? {};
  const projectWarnings = !loaded
    ? [
        `no project file (${PROJECT_FILE_NAMES.join(' or ')}) in ${cwd}: the agent server has no graphs. Next: ${NO_PROJECT_NEXT_STEPS.map(([step, what]) => `${step} — ${what}`).join('; ')}`,
      ]
    : examples && ownFile
      ? [...loaded.warnings, `--examples: serving the shipped example graphs; ${ownFile} is not read`]
      : loaded.warnings;
  const projectEnv = loaded ? applyProjectEnv(loaded, env) : [];
  const dataDir = values.memory || flag('AGENTPLANE_MEMORY', env.AGENTPLANE_MEMORY, false) ? null : path.resolve(cwd, values.data ?? env.DATA_DIR ?? './data');
  const givenPort = values.port ?? env.PORT;
  const port = givenPort === undefined || givenPort === '' ? 8123 : /^\d+$/.test(givenPort) ? Number(givenPort) : NaN;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port / PORT must be an integer from 0 to 65535 (0 picks a free port), got "${givenPort}"`);
  const grpc = grpcPortOf(values['grpc-port'] ?? env.AGENTPLANE_GRPC_PORT, port);
  checkLogFormat(env.LOG_FORMAT);
  const role = oneOf('AGENTPLANE_ROLE', env.AGENTPLANE_ROLE, ['server', 'queue'] as const, 'server');
  // runs reach a queue worker only through a database the API servers share
  if (role === 'queue' && !(values.database || env.DATABASE_URL))
    throw new Error(
      'AGENTPLANE_ROLE=queue needs DATABASE_URL (or --database): a queue worker executes the runs the API servers store in their shared PostgreSQL',
    );
  const maxConcurrentRuns = positiveInteger('AGENTPLANE_MAX_CONCURRENT_RUNS', env.AGENTPLANE_MAX_CONCURRENT_RUNS, 10);
  return {
    port,
    grpcPort: role === 'queue' ? null : grpc.port,
    grpcPortNamed: grpc.named,
    host: values.host ?? env.HOST ?? '127.0.0.1',
    dataDir,
    configFile,
    project,
    projectWarnings,
    projectEnv,
    mock: values.mock ?? flag('AGENTPLANE_MOCK', env.AGENTPLANE_MOCK, false),
    publicUrl: env.AGENTPLANE_PUBLIC_URL ?? env.LANGGRAPH_API_URL ?? null,
    a2aSigning: env.AGENTPLANE_A2A_SIGNING_KEY
      ? {
          key: env.AGENTPLANE_A2A_SIGNING_KEY,
          kid: env.AGENTPLANE_A2A_SIGNING_KEY_ID || 'agentplane',
          alg: env.AGENTPLANE_A2A_SIGNING_ALG || 'ES256',
          ...(env.AGENTPLANE_A2A_SIGNING_JKU ? { jku: env.AGENTPLANE_A2A_SIGNING_JKU } : {}),
          ...(env.AGENTPLANE_A2A_SIGNING_PUBLISHED_KEYS ? { published: env.AGENTPLANE_A2A_SIGNING_PUBLISHED_KEYS } : {}),
        }
      : null,
    trustProxy: flag('AGENTPLANE_TRUST_PROXY', env.AGENTPLANE_TRUST_PROXY, false),
    maxBodyBytes: positiveInteger('AGENTPLANE_MAX_BODY_BYTES', env.AGENTPLANE_MAX_BODY_BYTES, 1024 * 1024),
    maxStreamsPerClient: positiveInteger('AGENTPLANE_MAX_STREAMS_PER_CLIENT', env.AGENTPLANE_MAX_STREAMS_PER_CLIENT, 100),
    maxStreams: positiveInteger('AGENTPLANE_MAX_STREAMS', env.AGENTPLANE_MAX_STREAMS, 1000),
    // far above what a tenant's use needs, far below what takes the host from the others
    tenantQuotas: {
      threads: positiveInteger('AGENTPLANE_MAX_THREADS_PER_TENANT', env.AGENTPLANE_MAX_THREADS_PER_TENANT, 10_000),
      crons: positiveInteger('AGENTPLANE_MAX_CRONS_PER_TENANT', env.AGENTPLANE_MAX_CRONS_PER_TENANT, 100),
      storeItems: positiveInteger('AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT', env.AGENTPLANE_MAX_STORE_ITEMS_PER_TENANT, 100_000),
      // an item is up to a request body (1 MiB): the count alone let a tenant hold 100 GB
      storeBytes: positiveInteger('AGENTPLANE_MAX_STORE_BYTES_PER_TENANT', env.AGENTPLANE_MAX_STORE_BYTES_PER_TENANT, 1024 ** 3),
      runsInFlight: positiveInteger('AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT', env.AGENTPLANE_MAX_RUNS_IN_FLIGHT_PER_TENANT, 1_000),
      // a listener is a cluster of the tenant's; a provider one OAuth app (MCP discovery registers them too)
      listeners: positiveInteger('AGENTPLANE_MAX_LISTENERS_PER_TENANT', env.AGENTPLANE_MAX_LISTENERS_PER_TENANT, 20),
      authProviders: positiveInteger('AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT', env.AGENTPLANE_MAX_AUTH_PROVIDERS_PER_TENANT, 100),
    },
    // a firing is a run, made outside the tenant's request rate
    minCronIntervalSeconds: atMost(
      'AGENTPLANE_MIN_CRON_INTERVAL_S',
      positiveInteger('AGENTPLANE_MIN_CRON_INTERVAL_S', env.AGENTPLANE_MIN_CRON_INTERVAL_S, 60),
      60,
    ),
    maxRequestsPerSecond: positiveInteger('AGENTPLANE_MAX_REQUESTS_PER_SECOND', env.AGENTPLANE_MAX_REQUESTS_PER_SECOND, 100),
    // never below the rate: a second's requests are always let in at once
    maxRequestBurst: positiveInteger(
      'AGENTPLANE_MAX_REQUEST_BURST',
      env.AGENTPLANE_MAX_REQUEST_BURST,
      Math.max(250, positiveInteger('AGENTPLANE_MAX_REQUESTS_PER_SECOND', env.AGENTPLANE_MAX_REQUESTS_PER_SECOND, 100)),
    ),
    socketIdleSeconds: positiveInteger('AGENTPLANE_SOCKET_IDLE_SECONDS', env.AGENTPLANE_SOCKET_IDLE_SECONDS, 60),
    maxBodyDepth: positiveInteger('AGENTPLANE_MAX_BODY_DEPTH', env.AGENTPLANE_MAX_BODY_DEPTH, DEFAULT_MAX_BODY_DEPTH),
    validateResponses: flag('AGENTPLANE_VALIDATE_RESPONSES', env.AGENTPLANE_VALIDATE_RESPONSES, false),
    logLevel: oneOf('LOG_LEVEL', env.LOG_LEVEL, LOG_LEVELS, 'info'),
    accessLog: flag('AGENTPLANE_ACCESS_LOG', env.AGENTPLANE_ACCESS_LOG, true),
    apiKeys: env.AGENTPLANE_API_KEYS ?? null,
    apiKeysFile: env.AGENTPLANE_API_KEYS_FILE ?? null,
    apiKeyDigests: env.AGENTPLANE_API_KEY_DIGESTS || null,
    // a deployed server answers its tenant's keys only, so its tenant's quotas bind there
    agentServerAuth: agentServerAuthOf(project, env),
    deploymentAuth: flag('AGENTPLANE_DEPLOYMENT_AUTH', env.AGENTPLANE_DEPLOYMENT_AUTH, true),
    fsync: flag('AGENTPLANE_FSYNC', env.AGENTPLANE_FSYNC, false),
    storeCacheMb: positiveInteger('AGENTPLANE_STORE_CACHE_MB', env.AGENTPLANE_STORE_CACHE_MB, 64),
    databaseUrl: values.database || env.DATABASE_URL || null,
    databasePool: positiveInteger('AGENTPLANE_DATABASE_POOL', env.AGENTPLANE_DATABASE_POOL, 10),
    maxConcurrentRuns,
    maxRunSlotsPerTenant: positiveInteger('AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT', env.AGENTPLANE_MAX_RUN_SLOTS_PER_TENANT, Math.max(1, maxConcurrentRuns - 1)),
    schemaWarmup: flag('AGENTPLANE_SCHEMA_WARMUP', env.AGENTPLANE_SCHEMA_WARMUP, true),
    runWorkerWarmup: flag('AGENTPLANE_RUN_WORKER_WARMUP', env.AGENTPLANE_RUN_WORKER_WARMUP, true),
    runWorkers: nonNegativeInteger('AGENTPLANE_RUN_WORKERS', env.AGENTPLANE_RUN_WORKERS, Math.max(1, os.availableParallelism())),
    runTimeoutMs: duration('seconds', 'AGENTPLANE_RUN_TIMEOUT_S', env.AGENTPLANE_RUN_TIMEOUT_S, 3600) * 1000,
    runStallMs: duration('seconds', 'AGENTPLANE_RUN_STALL_TIMEOUT_S', env.AGENTPLANE_RUN_STALL_TIMEOUT_S, 300) * 1000,
    runLeaseMs: positiveInteger('AGENTPLANE_RUN_LEASE_S', env.AGENTPLANE_RUN_LEASE_S, 30) * 1000,
    runWorkerMemoryMb: optionalMegabytes('AGENTPLANE_RUN_WORKER_MEMORY_MB', env.AGENTPLANE_RUN_WORKER_MEMORY_MB),
    phaseMs: duration('milliseconds', 'AGENTPLANE_PHASE_MS', env.AGENTPLANE_PHASE_MS, 100),
    deployer: oneOf(
      env.AGENTPLANE_DEPLOYER ? 'AGENTPLANE_DEPLOYER' : `"deployer" of ${configFile}`,
      env.AGENTPLANE_DEPLOYER || project.deployer,
      ['simulated', 'local', 'container', 'kubernetes', 'kube-local'] as const,
      'simulated',
    ),
    kube: { namespace: env.AGENTPLANE_KUBE_NAMESPACE || 'default', postgresImage: env.AGENTPLANE_KUBE_POSTGRES_IMAGE || 'postgres:16' },
    buildTimeoutMs: positiveInteger('AGENTPLANE_BUILD_TIMEOUT_S', env.AGENTPLANE_BUILD_TIMEOUT_S, 600) * 1000,
    workloadPolicy: {
      imageNamespaces: imageNamespaces(env.AGENTPLANE_IMAGE_NAMESPACES),
      csiDrivers: csiDrivers(env.AGENTPLANE_CSI_DRIVERS),
      maxReplicas: positiveInteger('AGENTPLANE_MAX_REPLICAS', env.AGENTPLANE_MAX_REPLICAS, 10),
      maxAnnotationBytes: positiveInteger('AGENTPLANE_MAX_ANNOTATION_BYTES', env.AGENTPLANE_MAX_ANNOTATION_BYTES, 256 * 1024),
      maxResourceSpecBytes: positiveInteger('AGENTPLANE_MAX_RESOURCE_SPEC_BYTES', env.AGENTPLANE_MAX_RESOURCE_SPEC_BYTES, 512 * 1024),
      maxDeploymentsPerTenant: positiveInteger('AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT', env.AGENTPLANE_MAX_DEPLOYMENTS_PER_TENANT, 100),
      maxReplicasPerTenant: positiveInteger('AGENTPLANE_MAX_REPLICAS_PER_TENANT', env.AGENTPLANE_MAX_REPLICAS_PER_TENANT, 200),
      maxRevisionsPerDeployment: positiveInteger('AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT', env.AGENTPLANE_MAX_REVISIONS_PER_DEPLOYMENT, 1000),
    },
    deployTimeoutMs: positiveInteger('AGENTPLANE_DEPLOY_TIMEOUT_S', env.AGENTPLANE_DEPLOY_TIMEOUT_S, 120) * 1000,
    deployerIsolation: oneOf('AGENTPLANE_DEPLOYER_ISOLATION', env.AGENTPLANE_DEPLOYER_ISOLATION, ['auto', 'user', 'none'] as const, 'auto'),
    deploymentsDir: env.AGENTPLANE_DEPLOYMENTS_DIR ? path.resolve(cwd, env.AGENTPLANE_DEPLOYMENTS_DIR) : null,
    listenerTimeoutMs: duration('seconds', 'AGENTPLANE_LISTENER_TIMEOUT_S', env.AGENTPLANE_LISTENER_TIMEOUT_S, 60) * 1000,
    agentAuth: {
      tokenKey: env.AGENTPLANE_TOKEN_KEY?.trim() || null,
      previousTokenKeys: (env.AGENTPLANE_TOKEN_KEY_PREVIOUS ?? '')
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
      allowHttp: flag('AGENTPLANE_AUTH_ALLOW_HTTP', env.AGENTPLANE_AUTH_ALLOW_HTTP, false),
      allowedNetworks: networks('AGENTPLANE_AUTH_ALLOWED_NETWORKS', env.AGENTPLANE_AUTH_ALLOWED_NETWORKS),
      // whose providers a graph's authenticate() uses when its run has no tenant (agent-server auth off)
      graphTenant: env.AGENTPLANE_AGENT_AUTH_TENANT?.trim().toLowerCase() || null,
      devProvider: flag(
        'AGENTPLANE_DEV_OAUTH',
        env.AGENTPLANE_DEV_OAUTH,
        devProviderDefault({
          host: values.host ?? env.HOST ?? '127.0.0.1',
          database: Boolean(values.database || env.DATABASE_URL),
          agentServerAuth: agentServerAuthOf(project, env),
        }),
      ),
    },
    // a queue worker serves no API, the control plane's included
    controlPlane: role === 'queue' ? false : flag('AGENTPLANE_CONTROL_PLANE', env.AGENTPLANE_CONTROL_PLANE, true),
    role,
    systemAssistantConfig: configByGraph('LANGGRAPH_CONFIG', env.LANGGRAPH_CONFIG),
    env,
  };
}

/**
 * The development OAuth provider is on by default only on a developer's machine as `npm start`
 * leaves it: listening on loopback (no one else can open its consent page), on the embedded
 * store, without agent-server auth. A server others reach (another host, a database shared by
 * replicas, tenants) offers it only when AGENTPLANE_DEV_OAUTH turns it on.
 */
/** Whether agent-server auth is on: the project file's, else the setting's; always with keys given by digests (a deployed server answers its tenant's keys only, so its quotas bind there). */
function agentServerAuthOf(project: ProjectConfig, env: Record<string, string | undefined>): boolean {
  if (env.AGENTPLANE_API_KEY_DIGESTS) return true;
  return project.auth?.agent_server ?? flag('AGENTPLANE_AGENT_SERVER_AUTH', env.AGENTPLANE_AGENT_SERVER_AUTH, false);
}

function devProviderDefault(server: { host: string; database: boolean; agentServerAuth: boolean }): boolean {
  const loopback = server.host === 'localhost' || server.host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(server.host);
  return loopback && !server.database && !server.agentServerAuth;
}

/** The authorization servers `agentplane dev` may reach unless the settings say otherwise: this machine's. */
export const DEV_AUTH_NETWORKS = ['127.0.0.0/8', '::1/128'];

/**
 * agentplane dev: an OAuth server on this machine (plain http, loopback: the usual way to try
 * agent auth) is allowed unless AGENTPLANE_AUTH_ALLOW_HTTP / AGENTPLANE_AUTH_ALLOWED_NETWORKS
 * are set; serve keeps the strict defaults (https, public addresses).
 */
export function withDevAuthDefaults(config: ServerConfig): ServerConfig {
  const set = (name: string) => Boolean(config.env[name]?.trim());
  return {
    ...config,
    agentAuth: {
      ...config.agentAuth,
      allowHttp: set('AGENTPLANE_AUTH_ALLOW_HTTP') ? config.agentAuth.allowHttp : true,
      allowedNetworks: set('AGENTPLANE_AUTH_ALLOWED_NETWORKS') ? config.agentAuth.allowedNetworks : DEV_AUTH_NETWORKS,
    },
  };
}

/** The gRPC gateway's port: a number (0 a free one), `off`, or unset (50051; 0 when the HTTP port is 0, so test servers never collide). */
function grpcPortOf(given: string | undefined, httpPort: number): { port: number | null; named: boolean } {
  if (given === undefined || given === '') return { port: httpPort === 0 ? 0 : DEFAULT_GRPC_PORT, named: false };
  if (/^\s*off\s*$/i.test(given)) return { port: null, named: true };
  const port = wholeNumber(given);
  if (!Number.isInteger(port) || port > 65535)
    throw new Error(`--grpc-port / AGENTPLANE_GRPC_PORT must be an integer from 0 to 65535 (0 picks a free port) or off, got "${given}"`);
  return { port, named: true };
}

/** gRPC's customary port (the A2A gRPC binding is served there unless told otherwise). */
export const DEFAULT_GRPC_PORT = 50051;

// Every setting is checked at start: a value the server cannot use stops it (exit 1) with a
// message naming the setting and what it takes, rather than being read as something else.

const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const satisfies readonly LogLevel[];

/** The digits of a setting as a number, NaN for anything else (a sign, a fraction, hex, words). */
const wholeNumber = (value: string) => (/^\s*\d+\s*$/.test(value) ? Number(value) : NaN);

function positiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = wholeNumber(value);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${name} must be a positive integer (1, 2, 3, …; default ${fallback}), got "${value}"`);
  return n;
}

function atMost(name: string, n: number, most: number): number {
  if (n > most) throw new Error(`${name} must be at most ${most}, got ${n}`);
  return n;
}

/** A size in MB of at least 16, or null when unset (the runtime's default applies). */
function optionalMegabytes(name: string, value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = wholeNumber(value);
  if (!Number.isSafeInteger(n) || n < 16) throw new Error(`${name} must be a whole number of megabytes, at least 16 (unset: Node's default), got "${value}"`);
  return n;
}

function nonNegativeInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = wholeNumber(value);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be 0 or a positive integer (default ${fallback}), got "${value}"`);
  return n;
}

const ON = /^(1|true|yes|on)$/i;
const OFF = /^(0|false|no|off)$/i;

/** The CSI drivers a deployment's volumes may name: comma-separated driver names; unset, none. */
function csiDrivers(value: string | undefined): string[] {
  const list = (value ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean);
  const bad = list.find((d) => !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(d) || d.length > 63);
  if (bad !== undefined) throw new Error(`AGENTPLANE_CSI_DRIVERS: "${bad}" is not a CSI driver name (like ebs.csi.aws.com)`);
  return list;
}

/** A comma-separated list of CIDR ranges or addresses; a wrong entry stops the start, named. */
function networks(name: string, value: string | undefined): string[] {
  const list = (value ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  for (const entry of list) {
    const [address, bits, extra] = entry.split('/');
    const family = net.isIP(address);
    const max = family === 6 ? 128 : 32;
    if (!family || extra !== undefined || (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > max)))
      throw new Error(`${name}: "${entry}" is not an IP address or a CIDR range (like 10.0.0.0/8 or fd00::/8)`);
  }
  return list;
}

/** A switch: 1/true/yes/on or 0/false/no/off (any case); unset or empty keeps the default. */
function flag(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value.trim() === '') return fallback;
  if (ON.test(value.trim())) return true;
  if (OFF.test(value.trim())) return false;
  throw new Error(`${name} must be 1, true, yes or on (to switch it on) or 0, false, no or off; got "${value}"`);
}

/** LOG_FORMAT is read by the log writer (main.ts); checked here with the other settings. */
function checkLogFormat(value: string | undefined): void {
  oneOf('LOG_FORMAT', value, ['json', 'pretty'] as const, 'json');
}

function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === '') return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

/** A JSON object of objects (one per graph id); unset or empty: none. */
function configByGraph(name: string, value: string | undefined): Record<string, Record<string, unknown>> {
  if (value === undefined || value.trim() === '') return {};
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new Error(`${name} must be a JSON object {"<graph id>": {"configurable": {…}, "context": {…}}}; it is not JSON (${(err as Error).message})`);
  }
  const bad = isObject(parsed) ? Object.entries(parsed).find(([, v]) => !isObject(v)) : undefined;
  if (!isObject(parsed) || bad)
    throw new Error(
      `${name} must be a JSON object {"<graph id>": {"configurable": {…}, "context": {…}}}${bad ? `; the value for "${bad[0]}" is not an object` : ''}`,
    );
  return parsed as Record<string, Record<string, unknown>>;
}

/** A duration setting: a number, 0 or more, in `unit`. */
function duration(unit: 'seconds' | 'milliseconds', name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new Error(`${name} must be a number of ${unit}, 0 or more (default ${fallback}), got "${value}"`);
  return n;
}
