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
import v8 from 'node:v8';

export interface IdleScavengeSettings {
  /** The young generation's use (bytes) over which an idle worker empties it. */
  youngBytes: number;
  /** How long after a run's end, with none in the worker, it is emptied. */
  afterMs: number;
}

export const IDLE_SCAVENGE: IdleScavengeSettings = { youngBytes: 1024 * 1024, afterMs: 1 };

export interface YoungGeneration {
  /** Bytes the young generation holds now. */
  used(): number;
  /** V8's collection of the young generation alone (a scavenge). */
  collect(): void;
}

export class IdleScavenge {
  private timer: NodeJS.Timeout | undefined;

  /** `idle`: whether no run (the project's or the warm-up's, started ahead or not) is in the worker. */
  constructor(
    private readonly young: YoungGeneration,
    private readonly idle: () => boolean,
    private readonly settings: IdleScavengeSettings = IDLE_SCAVENGE,
  ) {}

  /** A run ended in the worker. */
  runEnded(): void {
    if (this.timer || !this.idle()) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.idle() && this.young.used() > this.settings.youngBytes) this.young.collect();
    }, this.settings.afterMs);
    this.timer.unref();
  }
}

/** What this thread's young generation holds: V8's new space and its large objects. */
export function youngBytesUsed(): number {
  let bytes = 0;
  for (const space of v8.getHeapSpaceStatistics())
    if (space.space_name === 'new_space' || space.space_name === 'new_large_object_space') bytes += space.space_used_size;
  return bytes;
}
