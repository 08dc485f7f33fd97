// A played pod's server container restarted as a kubelet restarts a container, on podman 4.3.
// `kube play` makes its pods with the exit policy "stop": the server, the pod's only container,
// stopping for the restart makes podman's cleanup stop the infra container (the pod's
// namespaces) a moment later, at a time of its own. Under load that cleanup lands on either
// side of the restart's start: before it, the start fails ("cannot get namespace path", stop
// 110); after it, the restarted server is stopped with its pod half a second after its start
// (stop 133: exit 1, nothing in its log). Measured here under three busy loops, 9 of 20 plain
// restarts ended with the server not running. So the restart is followed by what a kubelet
// does with a container that is not running: the pod is started again (infra and server),
// once podman has settled, until the server stays up.
import { podman } from '../support.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long the server must keep running before the restart counts as done: the late stop came within 0.5 s. */
const STEADY_MS = 3000;
/** Pod starts tried before giving up (each after podman settled). */
const STARTS = 5;

/** The container's state as podman reads it ("running", "exited", "stopping", …), or "gone". */
function stateOf(container: string): string {
  try {
    return podman('inspect', container, '--format', '{{.State.Status}}');
  } catch {
    return 'gone';
  }
}

/**
 * Whether the container stays running for STEADY_MS, once podman's own transitions ("stopping",
 * a cleanup still running) have settled, within `settleMs`.
 */
async function staysUp(container: string, settleMs: number): Promise<boolean> {
  const deadline = Date.now() + settleMs;
  let upSince: number | null = null;
  while (Date.now() < deadline) {
    const state = stateOf(container);
    if (state === 'running') {
      upSince ??= Date.now();
      if (Date.now() - upSince >= STEADY_MS) return true;
    } else {
      upSince = null;
      // settled and not running: the caller starts the pod again
      if (state === 'exited' || state === 'stopped' || state === 'created' || state === 'gone') return false;
    }
    await sleep(250);
  }
  return false;
}

/** Restarts `<pod>-server` in its pod, giving it `stopSeconds` to stop, until it stays running. */
export async function restartPlayedServer(pod: string, stopSeconds = 30): Promise<void> {
  const server = `${pod}-server`;
  const tried: string[] = [];
  try {
    podman('restart', '--time', String(stopSeconds), server);
  } catch (error) {
    tried.push(`restart: ${(error as Error).message.split('\n')[0]}`);
  }
  for (let start = 0; start < STARTS; start++) {
    if (await staysUp(server, 60_000)) return;
    tried.push(`server ${stateOf(server)}; pod ${podState(pod)}`);
    try {
      podman('pod', 'start', pod);
    } catch (error) {
      tried.push(`pod start: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new Error(`the server of ${pod} did not stay up after its restart:\n${tried.join('\n')}`);
}

function podState(pod: string): string {
  try {
    return podman('pod', 'inspect', pod, '--format', '{{.State}}');
  } catch {
    return 'gone';
  }
}
