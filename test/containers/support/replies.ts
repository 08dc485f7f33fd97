// What the container tests ask of a control plane's replies: a body of the status expected, a
// state reached in time.
import assert from 'node:assert/strict';

/** The reply's JSON body, after checking its status. */
export async function json<T = any>(res: Response | Promise<Response>, status = 200): Promise<T> {
  const r = await res;
  const text = await r.text();
  assert.equal(r.status, status, text);
  return text ? JSON.parse(text) : (undefined as T);
}

/** Polls `probe` until it gives a value, or fails naming `what`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 240_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}
