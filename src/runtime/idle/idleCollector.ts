// The garbage a busy spell left is collected once the server is idle again. V8 collects its
// old generation when allocation pushes it to a limit, so a server that goes quiet after a
// burst (100,000 POST /threads, a run of large messages) keeps the burst's garbage until
// traffic comes back: after 100k thread creates, settled, 49 MB of a 134 MB heap was garbage,
// and one full collection took RSS from 297 to 259 MB (scripts/bench/findings.md). So the
// process is sampled once a second; when its heap has grown by `growthBytes` since the last
// collection and it has used under `idleShareOfACore` of a core for `idleMs`, one full
// collection runs (a pause of tens of ms, taken while nothing waits). It does not run again
// until the heap has grown again, so an idle server is left alone.
import v8 from 'node:v8';
import vm from 'node:vm';

export interface IdleCollectionSettings {
  /** Heap growth since the last collection (or the start) that makes one worth having. */
  growthBytes: number;
  /** How long the process must have been idle first. */
  idleMs: number;
  /** Idle: the process (every thread) used under this share of one core over a sample. */
  idleShareOfACore: number;
}

/**
 * 8 MB of growth: at 16 MB, what a snapshot of the embedded store leaves after runs on a long
 * history (each record's index row and times made text once more: 10-12 MB after 200 runs on
 * 100,000) stayed on the heap of the idle server, 12 MB over its live objects (issue 91,
 * findings). A collection of such a heap takes tens of ms, while nothing waits.
 */
export const IDLE_COLLECTION: IdleCollectionSettings = { growthBytes: 8 * 1024 * 1024, idleMs: 3_000, idleShareOfACore: 0.05 };
const SAMPLE_MS = 1_000;

/** The rule, apart from the process: fed one sample at a time, says when to collect. */
export class IdleCollection {
  private idleFor = 0;
  private baseline: number | undefined;

  constructor(private readonly settings: IdleCollectionSettings = IDLE_COLLECTION) {}

  /** A sample over `elapsedMs` in which the process used `cpuMs` and ended with `heapUsed` bytes; true: collect now. */
  sample(elapsedMs: number, cpuMs: number, heapUsed: number): boolean {
    this.baseline ??= heapUsed;
    this.idleFor = cpuMs < elapsedMs * this.settings.idleShareOfACore ? this.idleFor + elapsedMs : 0;
    return this.idleFor >= this.settings.idleMs && heapUsed - this.baseline >= this.settings.growthBytes;
  }

  /** After a collection: growth counts from what it left. */
  collected(heapUsed: number): void {
    this.baseline = heapUsed;
    this.idleFor = 0;
  }
}

/** V8's `gc`: a full collection, or with `{ type: 'minor' }` the young generation's alone (a scavenge). */
type Gc = (options?: { type: 'minor' | 'major' }) => void;

/**
 * V8's full collection. Node offers it only with --expose-gc, which the CLI's own process was
 * not started with: the flag is set just long enough to read `gc` from a context made for it,
 * then unset, so the project's code (here and in run workers) sees no `gc` global it did not have.
 */
export function fullCollection(): (() => void) | undefined {
  const gc = v8Gc();
  return gc && (() => gc());
}

/** V8's collection of the young generation alone (a scavenge: it deoptimizes no code, as a full one may), had as fullCollection's. */
export function youngCollection(): (() => void) | undefined {
  const gc = v8Gc();
  return gc && (() => gc({ type: 'minor' }));
}

function v8Gc(): Gc | undefined {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as Gc;
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Gc) : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Samples this process once a second and collects as IdleCollection says; none where V8's collection cannot be had. */
export function startIdleCollector(settings: IdleCollectionSettings = IDLE_COLLECTION): { stop(): void } | undefined {
  const collect = fullCollection();
  if (!collect) return undefined;
  const rule = new IdleCollection(settings);
  let last = process.cpuUsage();
  let at = performance.now();
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    const now = performance.now();
    last = process.cpuUsage();
    const elapsed = now - at;
    at = now;
    if (!rule.sample(elapsed, (used.user + used.system) / 1000, v8.getHeapStatistics().used_heap_size)) return;
    collect();
    rule.collected(v8.getHeapStatistics().used_heap_size);
    // the collection's own CPU is not the next sample's activity
    last = process.cpuUsage();
  }, SAMPLE_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
