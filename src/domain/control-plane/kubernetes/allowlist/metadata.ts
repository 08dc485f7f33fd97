// Labels and annotations a tenant may put on what agentplane renders: Kubernetes' syntax for
// their keys (and label values), and none of the prefixes their consumers act on. The kubelet
// and the container runtimes read seccomp and AppArmor profiles from annotations
// (`seccomp.security.alpha.kubernetes.io/pod: unconfined` turned kube-local's seccomp off);
// podman reads `io.podman.annotations.*` (libpod/define/annotations.go: userns, ulimit, init
// container type, seccomp, apparmor), `io.containers.*` (the seccomp hook's trace-syscall) and
// `volume.podman.io/*` (pkg/util/kube.go: a volume's driver, device and mount options); runc and
// crun turn `org.systemd.property.*` into properties of the container's systemd scope (TasksMax,
// MemoryMax: a tenant's own limits) and read `org.criu.config` (a CRIU configuration file) and
// `bundle`; crun reads `run.oci.*` and `module.wasm.image/variant`; CRI-O `io.kubernetes.cri-o.*`,
// `io.kubernetes.cri.*` and `*.crio.io` (cri-o pkg/annotations/annotations.go lists them all as
// what a runtime interprets); Kata and gVisor read `io.katacontainers.*` and `dev.gvisor.*`;
// Kubernetes owns `*.kubernetes.io/` and `*.k8s.io/`, and agentplane its own `agentplane.dev/`.
// Compared in lower case: a reserved key in capitals is still reserved to a reader that folds case.
import { mapOf, text, type Rule } from './admit.ts';

const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const RESERVED_DOMAINS = ['kubernetes.io', 'k8s.io', 'agentplane.dev', 'podman.io', 'crio.io', 'cri-o.io'];
const RESERVED_STARTS = [
  'io.podman',
  'io.containers',
  'io.kubernetes',
  'io.cri-o',
  'io.containerd',
  'io.katacontainers',
  'dev.gvisor',
  'org.opencontainers',
  'org.systemd',
  'org.criu',
  'run.oci',
  'module.wasm.image',
  'agentplane.dev',
];
/** Keys a runtime reads as they are (runc's "potentially unsafe" `bundle`). */
const RESERVED_KEYS = ['bundle'];
const RESERVED_WORDS = ['seccomp', 'apparmor', 'selinux'];

/** Why `key` is reserved to the platform, or undefined. */
export function reservedKeyProblem(key: string): string | undefined {
  const lower = key.toLowerCase();
  const slash = lower.indexOf('/');
  // a key with no prefix may be a domain itself: CRI-O reads `cpu-quota.crio.io`
  const prefix = slash < 0 ? lower : lower.slice(0, slash);
  const reserved =
    RESERVED_KEYS.includes(lower) ||
    RESERVED_DOMAINS.some((d) => prefix === d || prefix.endsWith(`.${d}`)) ||
    RESERVED_STARTS.some((s) => lower.startsWith(s)) ||
    RESERVED_WORDS.some((w) => lower.includes(w));
  if (reserved)
    return `${JSON.stringify(key)} is reserved: keys under *.kubernetes.io/, *.k8s.io/, *.podman.io/, *.crio.io/, agentplane.dev/, io.podman.*, io.containers.*, io.kubernetes.*, org.systemd.*, org.criu.*, run.oci.*, module.wasm.image/, io.katacontainers.*, dev.gvisor.* and any seccomp, AppArmor or SELinux key configure the platform or its container runtimes, not the deployment.`;
  return undefined;
}

/** Kubernetes' syntax of a label or annotation key: an optional DNS-subdomain prefix and `/`, then a name of up to 63 characters. */
function keySyntaxProblem(key: string): string | undefined {
  const parts = key.split('/');
  const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]!];
  const valid = parts.length <= 2 && NAME.test(name!) && name!.length <= 63 && (prefix === undefined || (DNS_SUBDOMAIN.test(prefix) && prefix.length <= 253));
  return valid
    ? undefined
    : `${JSON.stringify(key)} is not a Kubernetes label or annotation key: an optional lower-case DNS prefix and "/", then up to 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit.`;
}

const metadataKey = (key: string) => reservedKeyProblem(key) ?? keySyntaxProblem(key);

const labelValue = text((value) =>
  value === '' || (value.length <= 63 && NAME.test(value))
    ? undefined
    : 'a label value is empty or up to 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit.',
);
const annotationValue = text((value) => (value.length <= 64 * 1024 ? undefined : 'an annotation value holds at most 64 KiB.'));

export const labels: Rule<Record<string, string>> = mapOf(metadataKey, labelValue);
export const annotations: Rule<Record<string, string>> = mapOf(metadataKey, annotationValue);
