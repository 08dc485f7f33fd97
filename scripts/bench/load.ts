// HTTP load with autocannon's programmatic API. autocannon's own latency histogram has a
// 1 ms floor, too coarse for sub-millisecond replies, so each response time (a float in ms)
// is also kept here and the percentiles are taken from that.
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Builds each request's body (unique names, ids); overrides `body`. */
  makeBody?: () => string;
  /** autocannon request templates (per-request method, path and body). */
  requests?: autocannon.Request[];
  connections?: number;
  pipelining?: number;
  /** Seconds; the phase's time bound. */
  duration?: number;
  /** Stop after this many requests instead (seeding). */
  amount?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  non2xx: number;
  errors: number;
  connections: number;
  /**
   * Seconds from the start to the last response: with `amount`, autocannon ends at its next
   * one-second tick after the last response, so `seconds` (and `rps`) of a short burst say
   * more about that tick than about the server.
   */
  lastResponseSeconds?: number;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const times: number[] = [];
  let non2xx = 0;
  let lastResponseAt = 0;
  const connections = options.connections ?? 10;
  const started = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const makeBody = options.makeBody;
    const instance = autocannon(
      {
        url: options.url,
        method: (options.method ?? 'GET') as autocannon.Request['method'],
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.body !== undefined && !makeBody ? { body: options.body } : {}),
        ...(makeBody
          ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, body: makeBody() }) }] }
          : options.requests
            ? { requests: options.requests }
            : {}),
        connections,
        pipelining: options.pipelining ?? 1,
        // autocannon's defaults are merged with Object.assign: an undefined key would erase one
        ...(options.amount ? { amount: options.amount } : { duration: options.duration ?? 5 }),
        timeout: 30,
      } as autocannon.Options,
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      lastResponseAt = performance.now();
      if (status >= 200 && status < 300) times.push(ms);
      else non2xx += 1;
    });
  });
  const seconds = (performance.now() - started) / 1000;
  times.sort((a, b) => a - b);
  const ok = times.length;
  return {
    requests: ok,
    seconds: round(seconds, 2),
    rps: round(ok / seconds, 0),
    p50Ms: round(percentile(times, 50), 3),
    p99Ms: round(percentile(times, 99), 3),
    meanMs: round(ok ? times.reduce((a, b) => a + b, 0) / ok : 0, 3),
    non2xx,
    errors: result.errors + result.timeouts,
    connections,
    lastResponseSeconds: round(((lastResponseAt || performance.now()) - started) / 1000, 4),
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export const round = (n: number, digits: number) => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n);
