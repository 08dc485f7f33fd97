// `agentplane-server listener`: a process on another machine that reconciles the deployments
// assigned to it. It registers with the control plane once (the id is kept in its data
// directory, or given with --listener-id), then, every interval, heartbeats, takes the
// assignments the answer carries into its own store and deployer, and reports back
// (reconciler.ts). Its data directory holds that store and the deployer's files, so after a
// restart the deployer re-adopts what it ran (as the control plane's own does).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ListenerComputeType } from '../../generated/control-plane/types.gen.ts';
import { ControlPlaneRepository } from '../domain/control-plane/records.ts';
import { chooseDeployer } from '../handlers/control-plane/index.ts';
import type { ServerConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logger.ts';
import { openJournalStore } from '../backends/embedded/journalStore.ts';
import { PACKAGE_VERSION } from '../runtime/packageRoot.ts';
import { ControlPlaneClient, ControlPlaneError } from './controlPlaneClient.ts';
import { Reconciler } from './reconciler.ts';

export interface ListenerOptions {
  controlPlane: string;
  apiKey: string;
  tenantId?: string;
  /** Its name, as `--deployer` gives it; `config` was loaded with it as AGENTPLANE_DEPLOYER. */
  deployer: string;
  listenerId?: string;
  computeId?: string;
  namespaces: string[];
  intervalMs: number;
}

/** What kind of compute each deployer stands for (the listener resource's `compute_type`). */
const COMPUTE_TYPES: Record<string, ListenerComputeType> = {
  kubernetes: 'k8s',
  'kube-local': 'k8s',
  container: 'container',
  local: 'local',
  simulated: 'simulated',
};

export interface RunningListener {
  listenerId: string;
  stop(): Promise<void>;
}

/** `config.dataDir` is the listener's own: its store, listener.json and the deployer's files. */
export async function runListener(options: ListenerOptions, config: ServerConfig, log: Logger): Promise<RunningListener> {
  const computeType = COMPUTE_TYPES[options.deployer];
  if (!computeType) throw new Error(`--deployer must be one of ${Object.keys(COMPUTE_TYPES).join(', ')}, got "${options.deployer}"`);
  if (!config.dataDir) throw new Error('the listener needs a data directory (--data)');
  const dataDir = config.dataDir;
  const client = new ControlPlaneClient({ url: options.controlPlane, apiKey: options.apiKey, tenantId: options.tenantId });
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = await openJournalStore({ dataDir, fsync: config.fsync, log: log.child({ component: 'store' }) });
  const listenerId = await register(client, options, computeType, dataDir, log).catch(async (err) => {
    await store.close();
    throw err;
  });
  const mirror = new ControlPlaneRepository(store);
  const deployer = (await chooseDeployer({ config, log }, mirror))();
  await deployer.start?.();
  const reconciler = new Reconciler(listenerId, mirror, deployer, client, log.child({ listener_id: listenerId }));
  log.info('listener started', { listener_id: listenerId, control_plane: options.controlPlane, deployer: options.deployer, data: dataDir });

  let stopped = false;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    let lost = false;
    while (!stopped) {
      try {
        const { assignments } = await client.heartbeat(listenerId);
        if (lost) log.info('control plane reachable again', { listener_id: listenerId });
        lost = false;
        await reconciler.pass(assignments);
      } catch (err) {
        // the control plane restarting, the network gone: keep running what runs, try again
        if (!lost) log.warn('listener cannot reach the control plane; trying again every interval', { listener_id: listenerId, err });
        lost = true;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, options.intervalMs);
      });
    }
  })();
  return {
    listenerId,
    stop: async () => {
      stopped = true;
      wake?.();
      await loop;
      await deployer.stop();
      await store.close();
    },
  };
}

interface ListenerFile {
  listener_id: string;
  control_plane: string;
}

/** The listener's id: given, kept from an earlier start, found by its compute id, or new. */
async function register(client: ControlPlaneClient, options: ListenerOptions, computeType: ListenerComputeType, dataDir: string, log: Logger): Promise<string> {
  const file = path.join(dataDir, 'listener.json');
  const kept = readListenerFile(file);
  const known = options.listenerId ?? (kept?.control_plane === options.controlPlane ? kept.listener_id : undefined);
  if (known) {
    try {
      const listener = await client.getListener(known);
      writeListenerFile(file, { listener_id: listener.id, control_plane: options.controlPlane });
      return listener.id;
    } catch (err) {
      if (options.listenerId) throw new Error(`--listener-id ${options.listenerId}: ${(err as Error).message}`);
      if (!(err instanceof ControlPlaneError && err.status === 404)) throw err;
      log.warn('the control plane no longer knows this listener; registering again', { listener_id: known });
    }
  }
  // stable across restarts of this listener, different for another data directory on the same machine
  const computeId = options.computeId ?? `${os.hostname()}:${dataDir}`;
  const body = {
    compute_type: computeType,
    compute_id: computeId,
    compute_config: { k8s_namespaces: options.namespaces.length ? options.namespaces : null },
    version: PACKAGE_VERSION,
  };
  let id: string;
  try {
    id = (await client.createListener(body)).id;
  } catch (err) {
    if (!(err instanceof ControlPlaneError && err.status === 409)) throw err;
    // registered before from this data directory, its file lost: the same listener
    const found = await client.findListener(computeId);
    if (!found) throw err;
    id = found.id;
  }
  writeListenerFile(file, { listener_id: id, control_plane: options.controlPlane });
  return id;
}

function readListenerFile(file: string): ListenerFile | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as ListenerFile;
  } catch {
    return null;
  }
}

function writeListenerFile(file: string, value: ListenerFile): void {
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value), { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
}
