// `agentplane-server listener`: a process on another machine that reconciles the deployments
// assigned to it. It registers with the control plane once with an API key of the tenant
// (its id and its own token are kept in its data directory, mode 0600), or is given both
// (--listener-id, --listener-token) and then needs no API key at all. Every interval it
// heartbeats with its token, takes the assignments the answer carries into its own store
// and deployer, and reports back (reconciler.ts). Its data directory holds that store and
// the deployer's files, so after a restart the deployer re-adopts what it ran (as the
// control plane's own does).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ListenerComputeType, ListenerWithToken } from '../../generated/control-plane/types.gen.ts';
import { CollectionControlPlane } from '../adapters/embedded/collectionControlPlane.ts';
import { chooseRevisionEngine } from './areas/controlPlaneServices.ts';
import type { ServerConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logging/logger.ts';
import { openJournalStore } from '../adapters/embedded/journalStore.ts';
import { PACKAGE_VERSION } from '../runtime/packageRoot.ts';
import { ControlPlaneClient, ControlPlaneError, ListenerClient } from '../adapters/control-plane-client/controlPlaneClient.ts';
import { Reconciler } from '../domain/control-plane/listenerReconciler.ts';

export interface ListenerOptions {
  controlPlane: string;
  /** Registers the listener, or issues it a new token; not needed with `listenerId` and `listenerToken`. */
  apiKey?: string;
  /** The listener's own token (X-Listener-Token), as createListener or a rotation answered it. */
  listenerToken?: string;
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
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = await openJournalStore({ dataDir, fsync: config.fsync, cacheBytes: config.storeCacheMb * 1024 * 1024, log: log.child({ component: 'store' }) });
  const client = await register(options, computeType, dataDir, log).catch(async (err) => {
    await store.close();
    throw err;
  });
  const listenerId = client.id;
  const mirror = new CollectionControlPlane(store);
  const deployer = await chooseRevisionEngine({ config, log }, mirror);
  await deployer.start();
  const reconciler = new Reconciler(mirror, deployer, client, log.child({ listener_id: listenerId }));
  log.info('listener started', { listener_id: listenerId, control_plane: options.controlPlane, deployer: options.deployer, data: dataDir });

  let stopped = false;
  let wake: (() => void) | null = null;
  const loop = (async () => {
    let lost = false;
    while (!stopped) {
      try {
        const { assignments } = await client.heartbeat();
        if (lost) log.info('control plane reachable again', { listener_id: listenerId });
        lost = false;
        await reconciler.pass(assignments);
      } catch (err) {
        if (!lost && err instanceof ControlPlaneError && err.status === 401) {
          // rotated or deleted while this runs: nothing works until the listener gets its new token
          log.error("the control plane refuses this listener's token; restart it with the new one (--listener-token) or an API key", {
            listener_id: listenerId,
          });
        } else if (!lost) {
          // the control plane restarting, the network gone: keep running what runs, try again
          log.warn('listener cannot reach the control plane; trying again every interval', { listener_id: listenerId, err });
        }
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
  /** The listener's own token: the file is the listener's credential (mode 0600, in a 0700 directory). */
  token?: string;
}

/**
 * The listener's id and token: given, kept from an earlier start, or (with an API key)
 * found by its compute id and issued a new token, or registered anew. A token is checked by
 * a first heartbeat; one the control plane refuses (rotated, or the listener deleted) is
 * replaced when an API key allows it, else the start fails saying so.
 */
async function register(options: ListenerOptions, computeType: ListenerComputeType, dataDir: string, log: Logger): Promise<ListenerClient> {
  const connection = { url: options.controlPlane };
  const file = path.join(dataDir, 'listener.json');
  const kept = readListenerFile(file);
  const keptHere = kept?.control_plane === options.controlPlane ? kept : undefined;
  const known = options.listenerId ?? keptHere?.listener_id;
  const token = options.listenerToken ?? (keptHere && keptHere.listener_id === known ? keptHere.token : undefined);
  const keep = (listener: ListenerClient, token: string) => {
    writeListenerFile(file, { listener_id: listener.id, control_plane: options.controlPlane, token });
    return listener;
  };
  if (known && token) {
    const listener = new ListenerClient(connection, known, token);
    try {
      await listener.heartbeat();
      return keep(listener, token);
    } catch (err) {
      if (!(err instanceof ControlPlaneError && err.status === 401)) throw err;
      if (!options.apiKey)
        throw new Error(
          `listener ${known}: the control plane refused its token (rotated, or the listener deleted); give the new one with --listener-token, or an API key (--api-key) to issue one`,
        );
      log.warn("the control plane refused this listener's token; issuing it a new one with the API key", { listener_id: known });
    }
  }
  if (!options.apiKey)
    throw new Error('the listener needs an API key (--api-key or AGENTPLANE_API_KEY) to register, or its id and token (--listener-id and --listener-token)');
  const client = new ControlPlaneClient({ ...connection, apiKey: options.apiKey, tenantId: options.tenantId });
  const issued = (listener: ListenerWithToken) => keep(new ListenerClient(connection, listener.id, listener.token), listener.token);
  if (known) {
    try {
      return issued(await client.rotateToken(known));
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
  try {
    return issued(await client.createListener(body));
  } catch (err) {
    if (!(err instanceof ControlPlaneError && err.status === 409)) throw err;
    // registered before from this data directory, its file lost: the same listener, with a new token
    const found = await client.findListener(computeId);
    if (!found) throw err;
    return issued(await client.rotateToken(found.id));
  }
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
