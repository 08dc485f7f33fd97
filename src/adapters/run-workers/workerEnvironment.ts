// What a run worker changes of its thread's environment for the graphs' libraries, keeping
// what they see: process.env (below) and crypto.getRandomValues (poolRandomValues).
//
// The environment as an ordinary object. A worker's process.env is already a copy of
// its own (what the worker sets reaches no other thread), but every read of it calls into
// Node's C++ (~0.18 µs here), and LangChain and LangSmith read it hundreds of times a run
// (getEnvironmentVariable for every callback manager, run tree and tracing check: ~900 reads
// a LangGraph echo run, ~0.15 ms). The same values in a plain object behind a Proxy that only
// turns what is set into a string, as Node's does, read ~4× faster.

/** Replaces the calling worker's process.env by a copy with the same behaviour; call it before the project's code runs. */
export function useOwnEnvironmentCopy(): void {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) values[name] = value;
  process.env = new Proxy(values, {
    set(target, name, value) {
      if (typeof name === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
      target[name] = String(value);
      return true;
    },
    defineProperty(target, name, descriptor) {
      if (typeof name === 'symbol') throw new TypeError('Cannot convert a Symbol value to a string');
      target[name] = String(descriptor.value);
      return true;
    },
  });
}

/** How many random bytes are drawn at a time, and the largest request served from them. */
const RANDOM_POOL_BYTES = 4096;
const POOLED_MAX_BYTES = 256;

/**
 * The calling worker's crypto.getRandomValues hands out bytes of a pool drawn from the same
 * CSPRNG 4 KiB at a time, each byte once. LangChain and LangSmith make every UUID (callback
 * runs, run trees: ~50 a LangGraph echo run) from its own 16-byte call, and a call costs
 * ~4 µs (WebCrypto's checks and an OpenSSL draw each) where a slice of the pool costs ~0.4.
 * A Uint8Array larger than POOLED_MAX_BYTES, or any other kind of array, goes to the original
 * (which also says what is wrong with an array it does not take).
 */
export function poolRandomValues(): void {
  const webCrypto = globalThis.crypto;
  const original = webCrypto.getRandomValues.bind(webCrypto);
  const pool = new Uint8Array(RANDOM_POOL_BYTES);
  let used = pool.length;
  const getRandomValues = <T extends ArrayBufferView | null>(array: T): T => {
    if (!(array instanceof Uint8Array) || array.byteLength > POOLED_MAX_BYTES) return original(array as never) as T;
    if (used + array.byteLength > pool.length) {
      original(pool);
      used = 0;
    }
    array.set(pool.subarray(used, used + array.byteLength));
    used += array.byteLength;
    return array;
  };
  Object.defineProperty(webCrypto, 'getRandomValues', { value: getRandomValues, configurable: true, writable: true });
}
