// The auth service's token key out of the box. An operator sets AGENTPLANE_TOKEN_KEY; on an
// embedded start (a data directory, no PostgreSQL) the server makes its own the way it makes
// its API key, whatever the source of the API keys (the data directory's file,
// AGENTPLANE_API_KEYS, a keys file): 32 random bytes written once to DATA_DIR/token-key (0600)
// and read on every later start, so tokens sealed under it stay readable. A key made on this
// start is written only once the start succeeded (save), so a start refused for tokens sealed
// under another key leaves no file that would open nothing on the next one. A server on a
// database (replicas that must share one key) or in memory never makes one: without the
// setting its auth service answers 501.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { writePrivateFile, type KeySource } from './auth.ts';
import type { ServerConfig } from '../config.ts';

export const TOKEN_KEY_FILE = 'token-key';

export interface TokenKeySource {
  key: string | null;
  origin: 'AGENTPLANE_TOKEN_KEY' | 'data directory key file' | 'created on this start' | 'none';
  file?: string;
  /** Writes a key made on this start to its file (once the start succeeded). */
  save?: () => void;
}

/** Whether the API keys are the embedded default's: read from (or made in) the data directory. */
const embeddedDefault = (keys: KeySource) => keys.origin === 'created on this start' || keys.origin === 'data directory keys file';

export function loadTokenKey(config: Pick<ServerConfig, 'agentAuth' | 'dataDir' | 'databaseUrl' | 'mock'>): TokenKeySource {
  if (config.agentAuth.tokenKey) return { key: config.agentAuth.tokenKey, origin: 'AGENTPLANE_TOKEN_KEY' };
  if (config.mock || config.databaseUrl || !config.dataDir) return { key: null, origin: 'none' };
  const file = path.join(config.dataDir, TOKEN_KEY_FILE);
  if (fs.existsSync(file)) {
    const key = fs.readFileSync(file, 'utf8').trim();
    if (!key)
      throw new Error(
        `the token key file in the data directory (${file}) is empty: remove it to have a new one made (tokens sealed under the old key are then lost), or set AGENTPLANE_TOKEN_KEY`,
      );
    return { key, origin: 'data directory key file', file };
  }
  const key = randomBytes(32).toString('base64');
  return { key, origin: 'created on this start', file, save: () => writePrivateFile(file, `${key}\n`) };
}

/**
 * The tenant whose providers a graph's authenticate() uses when its run has none: the setting,
 * else on the embedded default its only tenant (the one its API key names), so the shipped
 * `connected` graph works with the providers that key registers.
 */
export function graphTenantOf(config: Pick<ServerConfig, 'agentAuth'>, keys: KeySource): string | null {
  if (config.agentAuth.graphTenant) return config.agentAuth.graphTenant;
  const tenants = new Set(keys.entries.flatMap((e) => e.tenants.map((t) => t.toLowerCase())));
  return embeddedDefault(keys) && tenants.size === 1 ? [...tenants][0] : null;
}
