// When kube-local starts a played pod again whose containers stopped: what a kubelet does for a
// Deployment's pod (its restartPolicy is Always) and podman 4.3 does not do for a played one.
// `kube play` gives its pods the exit policy "stop": once the server, the pod's only container,
// exits (a crash, an out-of-memory kill under its memory limit), podman stops the pod's infra
// container too, and the container's own restart policy is not applied (measured: 5 of 5
// SIGKILLed servers stayed exited, restart count 0). So the deployer looks at its pods and starts
// a stopped one again, after a back-off that doubles while it keeps stopping, as a kubelet's
// CrashLoopBackOff does (shorter here: this is a developer's machine).

/** The first wait before a stopped pod is started again, doubled at each stop after it. */
export const RESTART_MIN_MS = 1_000;
export const RESTART_MAX_MS = 30_000;
/** Running this long counts as recovered: the next stop waits the least again. */
export const HEALTHY_MS = 60_000;

interface PodRestart {
  /** The wait before the next start once it stops. */
  delayMs: number;
  /** When a stopped pod is started again; null while it runs. */
  restartAt: number | null;
  /** Since when it has been seen running; null while it is stopped. */
  runningSince: number | null;
}

/** What to do about a pod now: nothing, start it, or (it just stopped) wait `inMs` first. */
export type PodAction = { do: 'nothing' } | { do: 'start' } | { do: 'wait'; inMs: number };

/** The back-off of each played pod, by pod name. */
export class PlayedPodRestarts {
  private readonly pods = new Map<string, PodRestart>();

  /** What to do about `pod`, seen running (every container that serves is up) or not at `now`. */
  seen(pod: string, running: boolean, now: number): PodAction {
    let entry = this.pods.get(pod);
    if (!entry) this.pods.set(pod, (entry = { delayMs: RESTART_MIN_MS, restartAt: null, runningSince: null }));
    if (running) {
      entry.restartAt = null;
      entry.runningSince ??= now;
      if (now - entry.runningSince >= HEALTHY_MS) entry.delayMs = RESTART_MIN_MS;
      return { do: 'nothing' };
    }
    entry.runningSince = null;
    if (entry.restartAt === null) {
      entry.restartAt = now + entry.delayMs;
      const inMs = entry.delayMs;
      entry.delayMs = Math.min(entry.delayMs * 2, RESTART_MAX_MS);
      return { do: 'wait', inMs };
    }
    if (now < entry.restartAt) return { do: 'nothing' };
    // started now; if it stops again, the next wait is the doubled one
    entry.restartAt = null;
    return { do: 'start' };
  }

  /** Forgets the pods of which `keep` says no: a deployment removed, played again, or no longer watched. */
  forgetUnless(keep: (pod: string) => boolean): void {
    for (const pod of this.pods.keys()) if (!keep(pod)) this.pods.delete(pod);
  }
}
