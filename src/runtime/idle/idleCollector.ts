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

/**
 * What the caches of an idle server give back: after a burst of large runs the main thread kept
 * the last run's event log (its final values, ~10 MB on a thread of 25 runs of 400 KB), the
 * store's cached values of that thread (its messages, and the JSON text of its values) within
 * their 64 MB budget, ~40 MB of the main thread's heap that a server at rest does not need
 * (issue 86: RSS back to 1.5x idle within a minute of a burst; findings.md, h86m22). Once the
 * process has been idle `idleMs`, each holder drops what nothing has used for that long, once a
 * spell; the next reader reads it from the store. 20 s: before the burst's run worker retires
 * (30 s, workerRetirement.ts), whose ending is CPU that would start the spell over.
 */
export interface IdleReleaseSettings {
  idleMs: number;
  idleShareOfACore: number;
}

export const IDLE_RELEASE: IdleReleaseSettings = { idleMs: 20_000, idleShareOfACore: 0.05 };

/** The release's rule, apart from the process: fed one sample at a time, says when to release (once an idle spell). */
export class IdleRelease {
  private idleFor = 0;
  private released = false;

  constructor(private readonly settings: IdleReleaseSettings = IDLE_RELEASE) {}

  sample(elapsedMs: number, cpuMs: number): boolean {
    if (cpuMs < elapsedMs * this.settings.idleShareOfACore) this.idleFor += elapsedMs;
    else this.idleFor = 0;
    if (this.idleFor === 0) this.released = false;
    if (this.released || this.idleFor < this.settings.idleMs) return false;
    this.released = true;
    return true;
  }
}

/**
 * When an idle server's young generations are given back (issue 91: idle RSS). A burst (or the
 * start's own warm-ups) grows V8's new space to its 16 MB semi-spaces, and an idle process makes
 * no garbage, so no collection comes to shrink it: at rest the main thread held 26 MB of new
 * space with under 1 MB in it, until V8's memory reducer shrank it 32 s to 90 s after the start,
 * later the busier the machine (findings.md, h91m24). V8 shrinks a young generation on a
 * collection that follows a stretch of low allocation (under 1 MB/s over its last 5 s): one
 * scavenge, once the process has been idle `idleMs`, once an idle spell, shrinks it to its floor
 * (1 MB on the main thread) at a cost of what survives in it (a fraction of a ms). The next busy
 * stretch grows it back to its full size at its first growth (youngGenerationGrowth.ts).
 *
 * V8 reads that allocation from its collections: what was allocated since the last one, over
 * the time since. Where no collection came after the busy stretch's last (plain node, no loader
 * thread's or timer's garbage to bring one), the rest's scavenge saw the stretch's tail spread
 * over the idle seconds (30 MB over 6 s: 5 MB/s) and left the young generation at 32 MB
 * (npm test's compiled child, stop 109). So one scavenge more comes `LOW_ALLOCATION_WINDOW_MS`
 * before the rest's, and closes the busy stretch: the rest's then sees only the idle seconds.
 */
export const IDLE_REST: IdleReleaseSettings = { idleMs: 10_000, idleShareOfACore: 0.05 };
/** V8's window of low allocation (5 s) and a second's margin: how long before the rest the busy stretch is closed. */
export const LOW_ALLOCATION_WINDOW_MS = 6_000;

/** When the scavenge that closes the busy stretch comes: the rest's time less V8's window, a sample at least. */
export function closingSettings(rest: IdleReleaseSettings): IdleReleaseSettings {
  return { idleMs: Math.max(SAMPLE_MS, rest.idleMs - LOW_ALLOCATION_WINDOW_MS), idleShareOfACore: rest.idleShareOfACore };
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

/**
 * Samples this process once a second and collects as IdleCollection says; none where V8's
 * collection cannot be had. `release` drops what nothing has used for the given ms and returns
 * the bytes it dropped: called as IdleRelease says, and followed by a full collection where it
 * dropped any (the dropped values are garbage only once collected).
 */
export function startIdleCollector(
  settings: IdleCollectionSettings = IDLE_COLLECTION,
  release?: (unusedForMs: number) => number,
  releaseSettings: IdleReleaseSettings = IDLE_RELEASE,
  restSettings: IdleReleaseSettings = IDLE_REST,
): { stop(): void } | undefined {
  const collect = fullCollection();
  const scavenge = youngCollection();
  if (!collect || !scavenge) return undefined;
  const rule = new IdleCollection(settings);
  const releasing = new IdleRelease(releaseSettings);
  const closing = new IdleRelease(closingSettings(restSettings));
  const resting = new IdleRelease(restSettings);
  let last = process.cpuUsage();
  let at = performance.now();
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    const now = performance.now();
    last = process.cpuUsage();
    const elapsed = now - at;
    at = now;
    const cpuMs = (used.user + used.system) / 1000;
    // once a spell: the busy stretch closed, then, idle long enough that V8 sees its allocation as low, the young generation shrinks (IDLE_REST)
    if (closing.sample(elapsed, cpuMs)) scavenge();
    if (resting.sample(elapsed, cpuMs)) scavenge();
    const released = release && releasing.sample(elapsed, cpuMs) ? release(releaseSettings.idleMs) : 0;
    if (!rule.sample(elapsed, cpuMs, v8.getHeapStatistics().used_heap_size) && released <= 0) return;
    collect();
    rule.collected(v8.getHeapStatistics().used_heap_size);
    // the collection's own CPU is not the next sample's activity
    last = process.cpuUsage();
  }, SAMPLE_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
