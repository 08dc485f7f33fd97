// Every port an area is built from, over the in-memory embedded store: nothing on disk, the
// simulated deploy target (phases paced, nothing started), graphs executed on the request loop
// (no run workers), no project (no graphs) unless one is given. Shipped beside the real
// backends, as a2a-js ships its InMemoryTaskStore: a test composes an area over these in
// milliseconds (composeControlPlane(await memoryPorts())), and so can an embedder.
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { AreaPorts } from '../area.ts';
import { openBackend } from '../backend.ts';
import { loadConfig, type ServerConfig } from '../../runtime/config.ts';
import { createLogger } from '../../runtime/logging/logger.ts';
import { Metrics } from '../../runtime/metrics/metrics.ts';

/** Settings of in-memory ports: what a test server does not need (warm-ups, gRPC, the development OAuth provider) is off. */
const MEMORY_SETTINGS: Record<string, string> = {
  AGENTPLANE_DEPLOYER: 'simulated',
  AGENTPLANE_PHASE_MS: '5',
  AGENTPLANE_RUN_WORKERS: '0',
  AGENTPLANE_SCHEMA_WARMUP: '0',
  AGENTPLANE_RUN_WORKER_WARMUP: '0',
  AGENTPLANE_GRPC_PORT: 'off',
  AGENTPLANE_DEV_OAUTH: 'off',
};

export interface MemoryPorts extends AreaPorts {
  /** Stops the store (and the coordination) under the ports. */
  close(): Promise<void>;
}

/** In-memory ports; `overrides` replaces any of them, `overrides.config` any setting. */
export async function memoryPorts(overrides: Partial<Omit<AreaPorts, 'config'>> & { config?: Partial<ServerConfig> } = {}): Promise<MemoryPorts> {
  const { config: settings, ...ports } = overrides;
  // a folder with no project file in it: the ports serve no project unless given one
  const nowhere = path.join(os.tmpdir(), 'agentplane-memory-ports');
  const loaded = loadConfig(['--memory'], { ...MEMORY_SETTINGS, AGENTPLANE_TOKEN_KEY: randomBytes(32).toString('base64') }, nowhere);
  const config: ServerConfig = { ...loaded, configFile: null, project: {}, projectWarnings: [], databaseUrl: null, mock: false, ...settings };
  const log = ports.log ?? createLogger('silent');
  const backend = await openBackend({ ...config, dataDir: null, databaseUrl: null }, log);
  const metrics = ports.metrics ?? new Metrics();
  // the areas add their histograms and counters as they are made
  await metrics.load();
  return {
    config,
    log,
    metrics,
    grpcPort: () => null,
    store: backend.store,
    coordination: backend.coordination,
    runBackend: await backend.runBackend(),
    queries: backend.queries,
    ...ports,
    close: () => backend.close(),
  };
}
