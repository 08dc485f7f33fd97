// API keys and the tenants (workspaces) they may act for. Keys come from
// AGENTPLANE_API_KEYS ("key:tenant-uuid,..."), a keys file, or, when neither is set, a key
// the server creates on first start and keeps in the data directory.
import fs from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isUuid } from './uuid.ts';
import type { HttpReply } from './errors.ts';
import { httpError } from './errors.ts';

export interface Identity {
  /** The tenant the request acts for; null for an anonymous call where that is allowed. */
  tenantId: string | null;
  authenticated: boolean;
}

export interface KeyEntry {
  key: string;
  tenants: string[];
}

const hash = (key: string) => createHash('sha256').update(key).digest('hex');

export class KeyRing {
  private readonly tenantsByHash = new Map<string, string[]>();

  constructor(entries: KeyEntry[]) {
    for (const { key, tenants } of entries) {
      const h = hash(key);
      const list = this.tenantsByHash.get(h) ?? [];
      for (const t of tenants) if (!list.includes(t)) list.push(t.toLowerCase());
      this.tenantsByHash.set(h, list);
    }
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
      return httpError(401, 'Missing credentials: send an API key in X-Api-Key or Authorization: Bearer.', { 'WWW-Authenticate': 'Bearer' });
    }
    const tenants = this.tenantsFor(key);
    if (!tenants) {
      if (!required) return { tenantId: null, authenticated: false };
      return httpError(401, 'Invalid API key.', { 'WWW-Authenticate': 'Bearer' });
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
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const at = item.lastIndexOf(':');
    if (at <= 0) throw new Error(`AGENTPLANE_API_KEYS entry "${item.slice(0, 4)}…" must be key:tenant-uuid`);
    const key = item.slice(0, at);
    const tenant = item.slice(at + 1);
    if (!isUuid(tenant)) throw new Error(`AGENTPLANE_API_KEYS: tenant "${tenant}" is not a UUID`);
    byKey.set(key, [...(byKey.get(key) ?? []), tenant]);
  }
  return [...byKey].map(([key, tenants]) => ({ key, tenants }));
}

export interface KeySource {
  entries: KeyEntry[];
  /** Set when the server made a key itself: main prints it once. */
  created?: KeyEntry;
  origin: string;
}

/**
 * Mock mode's key when none is configured: the same on every start, so a client configured
 * once keeps working (a mock stores nothing, so it never writes a key file either).
 */
export const MOCK_API_KEY: KeyEntry = { key: 'agentplane-mock-key', tenants: ['00000000-0000-4000-8000-000000000000'] };

export function loadKeys(options: { apiKeys: string | null; apiKeysFile: string | null; dataDir: string | null; mock?: boolean }): KeySource {
  if (options.apiKeys) return { entries: parseKeyList(options.apiKeys), origin: 'AGENTPLANE_API_KEYS' };
  if (options.apiKeysFile) return { entries: readKeysFile(options.apiKeysFile), origin: options.apiKeysFile };
  const file = options.dataDir ? path.join(options.dataDir, 'api-keys.json') : null;
  if (file && fs.existsSync(file)) return { entries: readKeysFile(file), origin: file };
  if (options.mock) return { entries: [MOCK_API_KEY], origin: `mock default key ${MOCK_API_KEY.key}` };
  const created = { key: `ap_${randomBytes(24).toString('base64url')}`, tenants: [randomUUID()] };
  if (file) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify({ keys: [created] }, null, 2) + '\n', { mode: 0o600 });
  }
  return { entries: [created], created, origin: file ?? 'memory' };
}

function readKeysFile(file: string): KeyEntry[] {
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { keys?: KeyEntry[] };
  if (!Array.isArray(parsed.keys)) throw new Error(`${file}: expected {"keys": [{"key": "...", "tenants": ["<uuid>"]}]}`);
  for (const entry of parsed.keys) {
    if (typeof entry.key !== 'string' || !Array.isArray(entry.tenants) || !entry.tenants.every((t) => isUuid(t))) {
      throw new Error(`${file}: every entry needs a string key and a list of tenant UUIDs`);
    }
  }
  return parsed.keys;
}
