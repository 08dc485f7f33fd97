// API keys and the tenants (workspaces) they may act for. Keys come from
// AGENTPLANE_API_KEYS ("key:tenant-uuid,..."), a keys file, or, when neither is set, a key
// the server creates on first start and keeps in the data directory.
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isUuid } from '../../shared/uuid.ts';
import type { HttpReply } from '../errors.ts';
import { fixedError, httpError } from '../errors.ts';

// a key-less or unknown key's refusal is the same for every request: made once (a flood of them is answered without one made each)
const MISSING_CREDENTIALS = fixedError(401, 'Missing credentials: send an API key in X-Api-Key or Authorization: Bearer.', { 'WWW-Authenticate': 'Bearer' });
const INVALID_KEY = fixedError(401, 'Invalid API key.', { 'WWW-Authenticate': 'Bearer' });

export interface Identity {
  /** The tenant the request acts for; null for an anonymous call where that is allowed. */
  tenantId: string | null;
  authenticated: boolean;
}

export interface KeyEntry {
  key: string;
  tenants: string[];
}

/** A key as the ring keeps it: its SHA-256, in hex. */
export const keyDigest = (key: string) => createHash('sha256').update(key).digest('hex');
const hash = keyDigest;

/** A key known by its digest alone (AGENTPLANE_API_KEY_DIGESTS): what a deployed server is given, never the key. */
export interface KeyDigestEntry {
  digest: string;
  tenants: string[];
}

export class KeyRing {
  private readonly tenantsByHash = new Map<string, string[]>();

  constructor(entries: KeyEntry[], digests: KeyDigestEntry[] = []) {
    for (const { digest, tenants } of [...entries.map(({ key, tenants }) => ({ digest: hash(key), tenants })), ...digests]) {
      const list = this.tenantsByHash.get(digest) ?? [];
      for (const t of tenants) if (!list.includes(t.toLowerCase())) list.push(t.toLowerCase());
      this.tenantsByHash.set(digest, list);
    }
  }

  /** How many tenants the keys act for together. */
  tenantCount(): number {
    return new Set([...this.tenantsByHash.values()].flat()).size;
  }

  /** The digests of the keys valid for `tenant` (any case): what a server deployed for it is given. */
  digestsOf(tenant: string): string[] {
    const wanted = tenant.toLowerCase();
    return [...this.tenantsByHash].filter(([, tenants]) => tenants.includes(wanted)).map(([digest]) => digest);
  }

  /** Valid keys seen before skip the hash: one SHA-256 per request was a measurable cost. */
  private readonly seen = new Map<string, string[]>();

  private tenantsFor(key: string): string[] | undefined {
    let tenants = this.seen.get(key);
    if (tenants) return tenants;
    tenants = this.tenantsByHash.get(hash(key));
    // only keys on the ring are remembered, so the map cannot grow past the ring's size
    if (tenants) this.seen.set(key, tenants);
    return tenants;
  }

  /**
   * Resolves the caller. Returns an HTTP error reply when the credentials are missing,
   * unknown or not valid for the requested tenant. `required` false (open agent-server
   * routes, like the upstream dev server) never fails: credentials that do not check out
   * are ignored and the call is anonymous (tenant null).
   */
  authenticate(headers: Record<string, string | string[] | undefined>, required: boolean): Identity | HttpReply {
    const identity = this.resolve(headers, required);
    if (!required && 'status' in identity) return ANONYMOUS;
    return identity;
  }

  private resolve(headers: Record<string, string | string[] | undefined>, required: boolean): Identity | HttpReply {
    const key = credential(headers);
    if (key === undefined) {
      if (!required) return { tenantId: null, authenticated: false };
      return MISSING_CREDENTIALS;
    }
    const tenants = this.tenantsFor(key);
    if (!tenants) {
      if (!required) return { tenantId: null, authenticated: false };
      return INVALID_KEY;
    }
    const asked = first(headers['x-tenant-id']);
    if (asked !== undefined) {
      if (!tenants.includes(asked.toLowerCase())) return httpError(403, `This API key is not valid for tenant ${asked}.`);
      return { tenantId: asked.toLowerCase(), authenticated: true };
    }
    if (tenants.length === 1) return { tenantId: tenants[0], authenticated: true };
    return httpError(403, 'This API key spans several workspaces and requires workspace specification: send X-Tenant-Id.');
  }
}

const ANONYMOUS: Identity = Object.freeze({ tenantId: null, authenticated: false });

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function credential(headers: Record<string, string | string[] | undefined>): string | undefined {
  const apiKey = first(headers['x-api-key']);
  if (apiKey) return apiKey;
  const authorization = first(headers.authorization);
  const m = authorization && /^Bearer\s+(.+)$/i.exec(authorization);
  return m ? m[1].trim() : undefined;
}

export function parseKeyList(text: string): KeyEntry[] {
  const byKey = new Map<string, string[]>();
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = item.lastIndexOf(':');
    if (at <= 0) throw new Error(`AGENTPLANE_API_KEYS entry "${item.slice(0, 4)}…" must be key:tenant-uuid`);
    const key = item.slice(0, at);
    const tenant = item.slice(at + 1);
    if (!isUuid(tenant)) throw new Error(`AGENTPLANE_API_KEYS: tenant "${tenant}" is not a UUID`);
    byKey.set(key, [...(byKey.get(key) ?? []), tenant]);
  }
  return [...byKey].map(([key, tenants]) => ({ key, tenants }));
}

/** AGENTPLANE_API_KEY_DIGESTS: `sha256-hex:tenant-uuid,...`. */
export function parseKeyDigests(text: string): KeyDigestEntry[] {
  const byDigest = new Map<string, string[]>();
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [digest, tenant, ...rest] = item.split(':');
    if (rest.length > 0 || !/^[0-9a-f]{64}$/i.test(digest ?? ''))
      throw new Error(`AGENTPLANE_API_KEY_DIGESTS entry "${item.slice(0, 8)}…" must be sha256-hex:tenant-uuid`);
    if (!isUuid(tenant ?? '')) throw new Error(`AGENTPLANE_API_KEY_DIGESTS: tenant "${tenant}" is not a UUID`);
    byDigest.set(digest.toLowerCase(), [...(byDigest.get(digest.toLowerCase()) ?? []), tenant]);
  }
  return [...byDigest].map(([digest, tenants]) => ({ digest, tenants }));
}

export interface KeySource {
  entries: KeyEntry[];
  /** Set when the server made a key itself: main prints it once. */
  created?: KeyEntry;
  /** Where the keys in force came from, for the start-up line (never a key value). */
  origin:
    | 'AGENTPLANE_API_KEYS'
    | 'AGENTPLANE_API_KEYS_FILE'
    | 'AGENTPLANE_API_KEY_DIGESTS'
    | 'data directory keys file'
    | 'created on this start'
    | 'mock default key';
  /** The file read (or written), if any. */
  file?: string;
  /** Key files that exist but are not read because a setting wins over them. */
  ignored: string[];
}

/**
 * Mock mode's key when none is configured: the same on every start, so a client configured
 * once keeps working (a mock stores nothing, so it never writes a key file either).
 */
export const MOCK_API_KEY: KeyEntry = { key: 'agentplane-mock-key', tenants: ['00000000-0000-4000-8000-000000000000'] };

/**
 * The keys in force, first found wins: AGENTPLANE_API_KEYS, else the file AGENTPLANE_API_KEYS_FILE
 * names, else DATA_DIR/api-keys.json, else (mock) the mock key, else a new key written there.
 * A setting replaces the files below it entirely: `ignored` names those that exist.
 */
export function loadKeys(options: {
  apiKeys: string | null;
  apiKeysFile: string | null;
  dataDir: string | null;
  mock?: boolean;
  /** Keys given by their digests (a deployed server's): no key of its own is made then. */
  digestsGiven?: boolean;
}): KeySource {
  const file = options.dataDir ? path.join(options.dataDir, 'api-keys.json') : null;
  const dataDirFile = file && fs.existsSync(file) ? file : null;
  if (options.digestsGiven && !options.apiKeys && !options.apiKeysFile && !dataDirFile)
    return { entries: [], origin: 'AGENTPLANE_API_KEY_DIGESTS', ignored: [] };
  if (options.apiKeys) {
    const ignored = [options.apiKeysFile, dataDirFile].filter((f): f is string => f !== null);
    return { entries: parseKeyList(options.apiKeys), origin: 'AGENTPLANE_API_KEYS', ignored };
  }
  if (options.apiKeysFile) {
    const named = path.resolve(options.apiKeysFile);
    return {
      entries: readKeysFile(named, `AGENTPLANE_API_KEYS_FILE (${named})`),
      origin: 'AGENTPLANE_API_KEYS_FILE',
      file: named,
      ignored: dataDirFile ? [dataDirFile] : [],
    };
  }
  if (dataDirFile) {
    const what = `the keys file in the data directory (${dataDirFile}; --data / DATA_DIR)`;
    return {
      entries: readKeysFile(dataDirFile, what, 'Fix it, or move it away to have a new key created, or set AGENTPLANE_API_KEYS / AGENTPLANE_API_KEYS_FILE.'),
      origin: 'data directory keys file',
      file: dataDirFile,
      ignored: [],
    };
  }
  if (options.mock) return { entries: [MOCK_API_KEY], origin: 'mock default key', ignored: [] };
  const created = { key: `ap_${randomBytes(24).toString('base64url')}`, tenants: [randomUUID()] };
  if (file) writePrivateFile(file, JSON.stringify({ keys: [created] }, null, 2) + '\n');
  return { entries: [created], created, origin: 'created on this start', ...(file ? { file } : {}), ignored: [] };
}

/** A secret the server made for itself, written where only its user reads it (0600). */
export function writePrivateFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text, { mode: 0o600 });
}

const KEYS_FILE_SHAPE = '{"keys": [{"key": "...", "tenants": ["<uuid>"]}]}';

/** `what` names the file and the setting behind it in every error. */
function readKeysFile(file: string, what: string, advice = ''): KeyEntry[] {
  const fail = (problem: string) => new Error(`${what} ${problem}${advice ? ` ${advice}` : ''}`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw fail(`cannot be read: ${(err as Error).message}.`);
  }
  let parsed: { keys?: KeyEntry[] } | null;
  try {
    parsed = JSON.parse(text) as { keys?: KeyEntry[] } | null;
  } catch (err) {
    throw fail(`is not valid JSON (${(err as Error).message.replace(/\s+/g, ' ')}); expected ${KEYS_FILE_SHAPE}.`);
  }
  if (!parsed || !Array.isArray(parsed.keys)) throw fail(`must hold ${KEYS_FILE_SHAPE}.`);
  parsed.keys.forEach((entry, i) => {
    if (typeof entry?.key !== 'string' || entry.key === '' || !Array.isArray(entry.tenants) || !entry.tenants.every((t) => isUuid(t))) {
      throw fail(`keys[${i}] needs a non-empty string "key" and a list "tenants" of tenant UUIDs.`);
    }
  });
  return parsed.keys;
}
