// Kubernetes' "restricted" Pod Security Standard as `podman|docker run` options, for every
// container agentplane runs itself (the container deployer's replicas and proxy, the local
// deployer's image_uri): all capabilities dropped, no privilege escalation, a fixed non-root
// user (the one the agentplane images are built with, so their data stays writable). Seccomp
// stays the engine's default profile (never `unconfined`); no host namespace, port or path is
// ever asked for: the only thing of the host a container reaches is its published loopback port.
import { IMAGE_USER } from '../../images/baseImage.ts';

/** The user every container runs as, whatever the image's own USER says (root included). */
export const CONTAINER_USER = `${IMAGE_USER.uid}:${IMAGE_USER.uid}`;

export const RESTRICTED_RUN_ARGS: readonly string[] = ['--cap-drop', 'ALL', '--security-opt', 'no-new-privileges', '--user', CONTAINER_USER];
