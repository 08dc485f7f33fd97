// A run worker empties its young generation when it goes idle after a run (issue 89: every run's
// first token, not only the first's). The worker allocates ~3.5 MB a run, so V8's scavenge came
// about every 4 runs, wherever the young generation filled up: often inside a run before its
// first token (3-9 ms against a first token of ~9 ms), which made the later runs' first tokens
// spread over 1.5x of each other (scripts/bench/findings.md). Taken once no run is in the
// worker, the scavenge finds the runs' objects dead (it costs what survives, a fraction of a
// millisecond) and the next run starts with an empty young generation.
//
// Bounded: only when the young generation holds more than `youngBytes` (a worker whose runs
// allocate little does not scavenge after each of them), and `afterMs` after the run's end, so a
// run that comes at once (a queued one, the pool answering the run's end) starts first and the
// collection is skipped; one that comes during it waits for a scavenge of garbage alone.
//
// And once the worker has held no run for `restMs`, one scavenge more, whatever the young
// generation holds (issue 91: idle RSS). Its runs (the start's warm-up runs too) grow V8's new
// space to its 16 MB semi-spaces, and an idle worker makes no garbage, so no collection comes to
// shrink it: an idle server's warm worker held 26 MB of new space with under 1 MB in it, for good
// (findings.md, h91m24). V8 shrinks a young generation on a collection that follows a stretch of
// low allocation (under 1 MB/s over its last 5 s): 10-20 s after the last run ends, the scavenge
// takes it down to its floor (youngGenerationFloor.ts: room for a run's allocations twice over,
// so the next run still meets no scavenge before its first token).
//
// And only when the young generation has too little room left for the next run: `roomRuns` (2)
// times what the last runs alone allocated (their largest, fading), once that is known. A scavenge after every run cost
// the worker its fixed part (the roots of its heap, ~1 ms) each time: back-to-back runs on one
// thread of the plain echo met 205-243 scavenges in 300 runs where V8 alone made ~100 (session
// 26, --trace-gc); a young generation with room for the next run needs none yet.
import v8 from 'node:v8';

export interface IdleScavengeSettings {
  /** The young generation's use (bytes) over which an idle worker empties it. */
  youngBytes: number;
  /** The room for the next run, as a multiple of what the last run alone allocated, under which an idle worker empties it. */
  roomRuns: number;
  /** How long after a run's end, with none in the worker, it is emptied. */
  afterMs: number;
  /** How long after the last run's end, with none in the worker since, it is shrunk. */
  restMs: number;
}

export const IDLE_SCAVENGE: IdleScavengeSettings = { youngBytes: 1024 * 1024, roomRuns: 2, afterMs: 1, restMs: 10_000 };

export interface YoungGeneration {
  /** Bytes the young generation holds now. */
  used(): number;
  /** Bytes it can still take before V8's next scavenge. */
  room(): number;
  /** V8's collection of the young generation alone (a scavenge). */
  collect(): void;
}

/** What a run's allocation counts for at the next run's end, against that run's own. */
const ALLOCATION_FADES = 0.9;

export class IdleScavenge {
  private timer: NodeJS.Timeout | undefined;
  private resting: NodeJS.Timeout | undefined;
  /** Runs ended so far: the rest's timer finds whether one ended while it ran. */
  private ends = 0;
  /** What the young generation held as a run started alone in the worker; undefined once read, or when it did not. */
  private usedAtStart: number | undefined;
  /** What the last runs that started and ended alone allocated (bytes, the largest, fading); undefined until one did, or after one with a scavenge inside it. */
  private runAllocates: number | undefined;

  /** `idle`: whether no run (the project's or the warm-up's, started ahead or not) is in the worker. */
  constructor(
    private readonly young: YoungGeneration,
    private readonly idle: () => boolean,
    private readonly settings: IdleScavengeSettings = IDLE_SCAVENGE,
  ) {}

  /** A run starts in the worker; `alone`: no other run is in it. */
  runStarted(alone: boolean): void {
    this.usedAtStart = alone ? this.young.used() : undefined;
  }

  /** A run ended in the worker. */
  runEnded(): void {
    this.rest();
    if (!this.idle()) {
      // another run was in the worker with it: what this one allocated is not its own
      this.usedAtStart = undefined;
      return;
    }
    const used = this.young.used();
    // the largest of the last runs', fading by a tenth a run: one run that allocates more than the
    // others keeps the room for a run like it for the next few. Less than at the start: a
    // scavenge came inside the run, and what it allocated is not known.
    this.runAllocates =
      this.usedAtStart !== undefined && used >= this.usedAtStart ? Math.max(used - this.usedAtStart, (this.runAllocates ?? 0) * ALLOCATION_FADES) : undefined;
    this.usedAtStart = undefined;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.idle() && this.young.used() > this.settings.youngBytes && !this.roomForNextRun()) this.young.collect();
    }, this.settings.afterMs);
    this.timer.unref();
  }

  /** Whether the young generation can take the next run (what the last allocated, with a margin) before V8 scavenges it. */
  private roomForNextRun(): boolean {
    return this.runAllocates !== undefined && this.young.room() >= this.runAllocates * this.settings.roomRuns;
  }

  /**
   * Any run ended in the worker (a warm-up's too): the young generation is shrunk once no run has
   * ended for a whole `restMs` and none is in the worker (between `restMs` and twice that after the
   * last end). One timer a `restMs` at most, not one a run; a run in the worker then re-arms it at its end.
   */
  rest(): void {
    this.ends += 1;
    if (!this.resting) this.restAfter(this.ends);
  }

  private restAfter(ends: number): void {
    this.resting = setTimeout(() => {
      this.resting = undefined;
      if (!this.idle()) return;
      if (this.ends !== ends) this.restAfter(this.ends);
      else this.young.collect();
    }, this.settings.restMs);
    this.resting.unref();
  }
}

/** What this thread's young generation can still take before V8's next scavenge: its new space's room. */
export function youngBytesRoom(): number {
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_available_size;
  return 0;
}

/** What this thread's young generation holds: V8's new space and its large objects. */
export function youngBytesUsed(): number {
  let bytes = 0;
  for (const space of v8.getHeapSpaceStatistics())
    if (space.space_name === 'new_space' || space.space_name === 'new_large_object_space') bytes += space.space_used_size;
  return bytes;
}
