// Tokens at rest: AES-256-GCM under the operator's key (AGENTPLANE_TOKEN_KEY), with earlier
// keys (AGENTPLANE_TOKEN_KEY_PREVIOUS) still opening what they sealed, so a key rotates
// without a migration: every token sealed under an old key is sealed again under the current
// one the next time it is read (tokenVault.ts). The record's id is the additional data, so a
// sealed value copied onto another record does not open. Format:
// `v1.<key id>.<iv>.<tag>.<ciphertext>` (base64url); the key id is the first 8 bytes of the
// key's SHA-256, which names the key without revealing it.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

interface Key {
  id: string;
  bytes: Buffer;
}

export class TokenCipher {
  private readonly current: Key;
  private readonly keys: Map<string, Key>;

  private constructor(keys: Key[]) {
    this.current = keys[0];
    this.keys = new Map(keys.map((k) => [k.id, k]));
  }

  /** The cipher for the settings, or null without a current key. Throws on a malformed key, naming the setting. */
  static fromSettings(current: string | null, previous: string[]): TokenCipher | null {
    if (!current) {
      if (previous.length > 0) throw new Error('AGENTPLANE_TOKEN_KEY_PREVIOUS is set without AGENTPLANE_TOKEN_KEY: the current key seals new tokens');
      return null;
    }
    return new TokenCipher([parseKey('AGENTPLANE_TOKEN_KEY', current), ...previous.map((p) => parseKey('AGENTPLANE_TOKEN_KEY_PREVIOUS', p))]);
  }

  seal(plain: string, recordId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.bytes, iv);
    cipher.setAAD(Buffer.from(recordId));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', this.current.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
  }

  /** The plain text; throws when no key in force sealed it, or it was altered. */
  open(sealed: string, recordId: string): string {
    const [version, keyId, iv, tag, body] = sealed.split('.');
    const key = this.keys.get(keyId);
    if (version !== 'v1' || !key) throw new Error(`a token is sealed under a key not in force (key id ${keyId}): set it in AGENTPLANE_TOKEN_KEY_PREVIOUS`);
    const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(recordId));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** Sealed under a key other than the current one (to be sealed again). */
  isStale(sealed: string): boolean {
    return sealed.split('.')[1] !== this.current.id;
  }
}

/** 32 bytes, as 64 hex digits or base64 (`openssl rand -base64 32`). */
function parseKey(setting: string, text: string): Key {
  const value = text.trim();
  const hex = /^[0-9a-fA-F]{64}$/.test(value);
  const base64 = /^[A-Za-z0-9+/_-]{43}=?$/.test(value);
  if (!hex && !base64) throw new Error(`${setting} must be a 32-byte key: 64 hex digits or base64 (openssl rand -base64 32)`);
  const bytes = hex ? Buffer.from(value, 'hex') : Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 16), bytes };
}
