// AGENTPLANE_IMAGE_NAMESPACES: the registry namespaces each tenant's deployments may run images
// from (docs/control-plane.md, "Tenant boundary"). Entries are separated by ";", each a list of
// namespaces separated by ",", for every tenant or, after `<tenant id>=`, for that tenant too:
//   ghcr.io/acme,docker.io/library;0f6c…=registry.internal/team-a
// A namespace is a registry (`ghcr.io`, `registry.internal:5000`) and an optional path under
// it; `*` is every registry but this machine's storage (localhost/…); `none` is none at all.
// Unset: `*` for every tenant. A wrong entry stops the start, named.

const TENANT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const REGISTRY = /^(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])(?:\.(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]))*(?::[0-9]+)?$/;
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*$/;
const NAME = 'AGENTPLANE_IMAGE_NAMESPACES';

/** Every tenant's key, and the namespace of every registry but localhost. */
const EVERY = '*';

function namespaceProblem(namespace: string): string | undefined {
  if (namespace === EVERY) return undefined;
  const [registry, ...path] = namespace.split('/');
  if (!REGISTRY.test(registry!)) return `"${registry}" is not a registry host (like ghcr.io or registry.internal:5000)`;
  // a registry has a dot or a port, or is localhost: anything else is read as docker.io's path
  if (!/[.:]/.test(registry!) && registry!.toLowerCase() !== 'localhost')
    return `"${registry}" is not a registry host: it has no "." or port (docker.io/${namespace}?)`;
  const bad = path.find((p) => !PATH_COMPONENT.test(p));
  return bad === undefined ? undefined : `"${bad}" is not a repository path component (lower-case letters, digits, ".", "_", "-")`;
}

/** The setting read: namespaces by tenant id (lower case), `*` for every tenant. */
export function imageNamespaces(value: string | undefined): Record<string, string[]> {
  if (value === undefined || value.trim() === '') return { [EVERY]: [EVERY] };
  const byTenant: Record<string, string[]> = {};
  for (const entry of value.split(';').map((e) => e.trim())) {
    if (!entry) continue;
    const equals = entry.indexOf('=');
    const tenant = equals < 0 ? EVERY : entry.slice(0, equals).trim().toLowerCase();
    if (tenant !== EVERY && !TENANT.test(tenant)) throw new Error(`${NAME}: "${tenant}" is not a tenant id (a UUID) or *`);
    const list = (equals < 0 ? entry : entry.slice(equals + 1))
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    const namespaces = list.length === 1 && list[0]!.toLowerCase() === 'none' ? [] : list;
    for (const namespace of namespaces) {
      const problem = namespaceProblem(namespace);
      if (problem) throw new Error(`${NAME}: ${problem}; a namespace is * or registry[/path], like ghcr.io/acme`);
    }
    byTenant[tenant] = [...(byTenant[tenant] ?? []), ...namespaces];
  }
  // tenants named alone: every tenant keeps none beyond them
  byTenant[EVERY] ??= [];
  return byTenant;
}
