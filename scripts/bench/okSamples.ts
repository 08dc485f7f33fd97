// What each `/ok` sample of the fan-out phase waited for (issue 87): the bench's request, one
// after another, timed by the client, set beside what the server recorded on the same monotonic
// clock (loopGaps.mjs): when its loop read the request and when the answer was finished, its
// collections, and the long turns of its main thread's loop and of the client's. A sample's time
// is then: before (sent → the server's loop read it: the server's turn under way, or its thread
// waiting for a core), in (read → answered) and after (answered → the client's loop read it).
// All times in µs on the monotonic clock (process.hrtime), which both processes share.

/** [from, to] */
export type Span = readonly [number, number];
/** [start, end, CPU µs, waiting for a core µs] of a turn of a loop (loopGaps.mjs). */
export type Turn = readonly [number, number, number, number];
export interface Collection {
  from: number;
  to: number;
  kind: string;
}

export interface OkSample {
  total: number;
  before: number;
  in: number;
  after: number;
  /** Wall µs of the server's collections within the sample, by kind. */
  gc: Record<string, number>;
  /** The server's turns overlapping `before`: their CPU and waiting for a core, µs (the overlapped share). */
  serverCpu: number;
  serverWait: number;
  /** The rest of those turns: neither running nor runnable (a collection waiting for its helpers, a synchronous system call). */
  serverBlocked: number;
  /** The client's turns overlapping the sample: CPU and waiting, µs. */
  clientCpu: number;
  clientWait: number;
  /** No server-side record of it (the server's record ended, or the request was not seen). */
  unmatched: boolean;
}

const overlap = (a: number, b: number, c: number, d: number) => Math.max(0, Math.min(b, d) - Math.max(a, c));

/** The turns' CPU and waiting within [from, to], each turn counted by the share of it inside. */
function within(turns: readonly Turn[], from: number, to: number): { cpu: number; wait: number; blocked: number } {
  let cpu = 0;
  let wait = 0;
  let wall = 0;
  for (const [s, e, c, w] of turns) {
    const share = e > s ? overlap(from, to, s, e) / (e - s) : 0;
    cpu += c * share;
    wait += w * share;
    wall += overlap(from, to, s, e);
  }
  return { cpu: Math.round(cpu), wait: Math.round(wait), blocked: Math.max(0, Math.round(wall - cpu - wait)) };
}

/** Each client sample with what the server and the client recorded over it. `served`: the server's [read, answered] of `/ok`. */
export function attribute(
  samples: readonly Span[],
  served: readonly Span[],
  gcs: readonly Collection[],
  serverTurns: readonly Turn[],
  clientTurns: readonly Turn[],
): OkSample[] {
  const byRead = [...served].sort((a, b) => a[0] - b[0]);
  let k = 0;
  return samples.map(([from, to]) => {
    // one request at a time: the server's read of it falls within the sample
    while (k < byRead.length && byRead[k]![0] < from) k += 1;
    const match = k < byRead.length && byRead[k]![0] <= to ? byRead[k] : undefined;
    const [read, answered] = match ?? [to, to];
    const gc: Record<string, number> = {};
    for (const g of gcs) {
      const us = overlap(from, to, g.from, g.to);
      if (us > 0) gc[g.kind] = (gc[g.kind] ?? 0) + us;
    }
    const server = within(serverTurns, from, read);
    const client = within(clientTurns, from, to);
    return {
      total: to - from,
      before: read - from,
      in: Math.max(0, answered - read),
      after: Math.max(0, to - Math.max(read, answered)),
      gc,
      serverCpu: server.cpu,
      serverWait: server.wait,
      serverBlocked: server.blocked,
      clientCpu: client.cpu,
      clientWait: client.wait,
      unmatched: match === undefined,
    };
  });
}

/** The value at quantile q of xs (the bench's p99: the floor(n·q)-th of them sorted). */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
}

const ms = (us: number) => Math.round(us / 100) / 10;

/** The report's lines: the p99 and its parts, the slowest samples, and what the p99 would be without the samples a collection overlapped. */
export function okReport(samples: readonly OkSample[], top = 8): string[] {
  if (!samples.length) return ['  no /ok sample'];
  const p99 = quantile(
    samples.map((s) => s.total),
    0.99,
  );
  const slow = samples.filter((s) => s.total >= p99);
  const slowest = [...samples].sort((a, b) => b.total - a.total);
  const withGc = (s: OkSample) => Object.keys(s.gc).length > 0;
  const noGc = samples.filter((s) => !withGc(s));
  const mean = (xs: OkSample[], f: (s: OkSample) => number) => ms(xs.reduce((a, s) => a + f(s), 0) / Math.max(1, xs.length));
  const gcText = (s: OkSample) =>
    Object.entries(s.gc)
      .map(([kind, us]) => `${kind} ${ms(us)}`)
      .join(', ');
  return [
    `  ${samples.length} /ok samples: p50 ${ms(
      quantile(
        samples.map((s) => s.total),
        0.5,
      ),
    )} ms, p99 ${ms(p99)} ms; a collection overlapped ${samples.filter(withGc).length} of them (${slow.filter(withGc).length} of the ${slow.length} at or above the p99); without those, p99 ${ms(
      quantile(
        noGc.map((s) => s.total),
        0.99,
      ),
    )} ms`,
    `  at or above the p99, on average: before the server read it ${mean(slow, (s) => s.before)} ms (its loop's CPU ${mean(slow, (s) => s.serverCpu)}, waiting for a core ${mean(slow, (s) => s.serverWait)}, blocked ${mean(slow, (s) => s.serverBlocked)}), in the server ${mean(slow, (s) => s.in)}, after ${mean(slow, (s) => s.after)}; the client's loop CPU ${mean(slow, (s) => s.clientCpu)}, waiting ${mean(slow, (s) => s.clientWait)}`,
    `  p99 of each part alone: before ${ms(
      quantile(
        samples.map((s) => s.before),
        0.99,
      ),
    )}, in ${ms(
      quantile(
        samples.map((s) => s.in),
        0.99,
      ),
    )}, after ${ms(
      quantile(
        samples.map((s) => s.after),
        0.99,
      ),
    )} ms${samples.some((s) => s.unmatched) ? `; ${samples.filter((s) => s.unmatched).length} not seen by the server's record` : ''}`,
    ...slowest
      .slice(0, top)
      .map(
        (s) =>
          `    ${ms(s.total)} ms = before ${ms(s.before)} (server CPU ${ms(s.serverCpu)}, waiting ${ms(s.serverWait)}, blocked ${ms(s.serverBlocked)}) + in ${ms(s.in)} + after ${ms(s.after)}; client CPU ${ms(s.clientCpu)}, waiting ${ms(s.clientWait)}${withGc(s) ? `; ${gcText(s)}` : ''}`,
      ),
  ];
}

/**
 * The main thread's scavenges' bytes copied in a window: how many, median, largest and in all (MB);
 * given each one's promoted bytes and the young generation it began with, their medians too.
 */
export function copiedReport(copied: readonly number[], promoted: readonly number[] = [], young: readonly number[] = []): string {
  if (copied.length === 0) return 'scavenges copied: none recorded';
  const mb = (bytes: number) => Math.round(bytes / 1e4) / 100;
  const median = (xs: readonly number[]) =>
    quantile(
      [...xs].sort((a, b) => a - b),
      0.5,
    );
  const sorted = [...copied].sort((a, b) => a - b);
  const total = sorted.reduce((a, b) => a + b, 0);
  const parts =
    promoted.length === copied.length && young.length === copied.length
      ? `; of it promoted, median ${mb(median(promoted))} MB; young generation when it began, median ${mb(median(young))} MB`
      : '';
  return `scavenges copied (survived + promoted): ${sorted.length}, median ${mb(quantile(sorted, 0.5))} MB, largest ${mb(sorted.at(-1)!)} MB, ${mb(total)} MB in all${parts}`;
}
