// An init or sidecar container as agentplane renders it: the seed's container fields, and
// inside its free-form objects (valueFrom, envFrom, resources, securityContext) the members
// of Kubernetes' types a container needs under the "restricted" Pod Security Standard.
import { caseVariantProblem, flag, integer, list, mapOf, oneOf, only, shape, text, type Problem, type Rule } from './admit.ts';
import { owned, ownSecret, type Owner } from './references.ts';
import { admitImage } from '../../workloadPolicy.ts';
import { quantity, relativePath } from './paths.ts';

const RESTRICTED = ' (Pod Security Standard "restricted")';
/** The only capability a container may add (restricted profile). */
const ADDABLE_CAPABILITIES = ['NET_BIND_SERVICE'] as const;
const SELINUX_TYPES = ['container_t', 'container_init_t', 'container_kvm_t'] as const;
/** What the downward API may put in a variable: the pod's own metadata and addresses. */
const FIELD_PATHS =
  /^(metadata\.(name|namespace|uid)|metadata\.(labels|annotations)\['[^']{1,317}'\]|spec\.(nodeName|serviceAccountName)|status\.(hostIP|hostIPs|podIP|podIPs))$/;
const RESOURCE_NAMES = ['cpu', 'memory', 'ephemeral-storage'] as const;
const CONTAINER_RESOURCES = [
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
] as const;
/** Names of agentplane's own containers in the pods a sidecar joins. */
const AGENTPLANE_CONTAINERS = new Set(['server', 'queue']);

export const dnsLabel = text((name) =>
  /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) && name.length <= 63 ? undefined : 'must be a DNS label: up to 63 lower-case letters, digits or "-".',
);

const quantities = mapOf(
  (name) =>
    RESOURCE_NAMES.includes(name as never)
      ? undefined
      : (caseVariantProblem(name, RESOURCE_NAMES) ?? `\`${name}\` is not a resource agentplane renders (allowed: ${RESOURCE_NAMES.join(', ')}).`),
  quantity,
);

const capabilities: Rule<{ add?: string[]; drop?: string[] }> = shape({
  add: list(oneOf(ADDABLE_CAPABILITIES, `: every other capability is dropped${RESTRICTED}`)),
  drop: list(text()),
});

/** A container's securityContext: only what the restricted profile allows (the renderer adds the enforced fields). */
const securityContext = shape({
  runAsUser: integer(1, 2 ** 31 - 1, `containers must not run as root (uid 0)${RESTRICTED}.`),
  runAsGroup: integer(1, 2 ** 31 - 1, `containers must not run with group 0${RESTRICTED}.`),
  runAsNonRoot: only(true, `runAsNonRoot must be true${RESTRICTED}.`),
  privileged: only(false, `privileged containers are not allowed${RESTRICTED}.`),
  allowPrivilegeEscalation: only(false, `allowPrivilegeEscalation must be false${RESTRICTED}.`),
  readOnlyRootFilesystem: flag,
  capabilities: (value, at, problems) => {
    // said at `capabilities`, naming what was asked for
    const local: Problem[] = [];
    const built = capabilities(value, at, local);
    const adds = (value as { add?: unknown }).add;
    if (Array.isArray(adds) && local.some((p) => p.loc[at.length] === 'add')) {
      const extra = adds.filter((c) => !ADDABLE_CAPABILITIES.includes(c));
      problems.push({ loc: at, msg: `capabilities may add only NET_BIND_SERVICE, not ${extra.join(', ')}; all others are dropped${RESTRICTED}.` });
      problems.push(...local.filter((p) => p.loc[at.length] !== 'add'));
    } else problems.push(...local);
    return built;
  },
  seccompProfile: (value, at, problems) => {
    const local: Problem[] = [];
    const built = shape({ type: oneOf(['RuntimeDefault', 'Localhost']), localhostProfile: relativePath }, { required: ['type'] })(value, at, local);
    if (local.some((p) => p.loc.length === at.length + 1 && p.loc[at.length] === 'type'))
      problems.push({ loc: at, msg: `seccompProfile.type must be RuntimeDefault or Localhost${RESTRICTED}.` });
    else problems.push(...local);
    return built;
  },
  procMount: oneOf(['Default'], RESTRICTED),
  seLinuxOptions: (value, at, problems) => {
    const local: Problem[] = [];
    const built = shape({ type: oneOf(SELINUX_TYPES) })(value, at, local);
    if (local.length)
      problems.push({
        loc: at,
        msg: `seLinuxOptions may set only a container type (${SELINUX_TYPES.join(', ')})${RESTRICTED}; ${local.map((p) => p.msg).join(' ')}`,
      });
    return built;
  },
});

export type AdmittedSecurityContext = NonNullable<ReturnType<typeof securityContext>>;

function envVarSource(owner: Owner) {
  return shape(
    {
      secretKeyRef: shape({ name: ownSecret(owner), key: text(), optional: flag }, { required: ['name', 'key'] }),
      configMapKeyRef: shape({ name: owned(owner, 'ConfigMap'), key: text(), optional: flag }, { required: ['name', 'key'] }),
      fieldRef: shape(
        {
          apiVersion: oneOf(['v1']),
          fieldPath: text((path) =>
            FIELD_PATHS.test(path) ? undefined : `fieldPath ${JSON.stringify(path)} is not one of the pod's own fields the downward API gives.`,
          ),
        },
        { required: ['fieldPath'] },
      ),
      resourceFieldRef: shape({ containerName: dnsLabel, resource: oneOf(CONTAINER_RESOURCES), divisor: quantity }, { required: ['resource'] }),
    },
    { exactlyOne: ['secretKeyRef', 'configMapKeyRef', 'fieldRef', 'resourceFieldRef'] },
  );
}

const envName = text((name) =>
  name.length > 0 && name.length <= 256 && !/[=\0]/.test(name) ? undefined : 'a variable name is 1 to 256 characters, without "=".',
);

function envVar(owner: Owner) {
  return shape({ name: envName, value: text(), valueFrom: envVarSource(owner) }, { required: ['name'] });
}

function envFromSource(owner: Owner) {
  return shape(
    {
      prefix: envName,
      secretRef: shape({ name: ownSecret(owner), optional: flag }, { required: ['name'] }),
      configMapRef: shape({ name: owned(owner, 'ConfigMap'), optional: flag }, { required: ['name'] }),
    },
    { exactlyOne: ['secretRef', 'configMapRef'] },
  );
}

const absolutePath = text((path) => (path.startsWith('/') && !path.split('/').includes('..') ? undefined : 'must be an absolute path without "..".'));

export const volumeMount = shape(
  {
    name: dnsLabel,
    mountPath: absolutePath,
    subPath: relativePath,
    // Bidirectional needs a privileged container
    mountPropagation: oneOf(['None', 'HostToContainer']),
    readOnly: flag,
    subPathExpr: relativePath,
  },
  { required: ['name', 'mountPath'] },
);

export function container(owner: Owner) {
  return shape(
    {
      name: (value, at, problems) => {
        const name = dnsLabel(value, at, problems);
        if (name && AGENTPLANE_CONTAINERS.has(name))
          return void problems.push({ loc: at, msg: `${JSON.stringify(name)} is the name of agentplane's own container.` });
        return name;
      },
      // built in its full form: the engine never resolves a short name or an id (workloadPolicy.ts)
      image: (value, at, problems) => {
        if (typeof value !== 'string') return void problems.push({ loc: at, msg: 'must be a string.' });
        const image = admitImage(value, owner.deploymentId, owner.workload);
        return image.ok ? image.image : void problems.push({ loc: at, msg: image.msg });
      },
      imagePullPolicy: oneOf(['Always', 'Never', 'IfNotPresent']),
      command: list(text()),
      args: list(text()),
      workingDir: absolutePath,
      env: list(envVar(owner)),
      envFrom: list(envFromSource(owner)),
      resources: shape({ limits: quantities, requests: quantities }),
      volumeMounts: list(volumeMount),
      securityContext,
      restartPolicy: oneOf(['Always'], ' (a native sidecar)'),
    },
    { required: ['name', 'image'] },
  );
}

export type AdmittedContainer = NonNullable<ReturnType<ReturnType<typeof container>>>;
export type AdmittedVolumeMount = NonNullable<ReturnType<typeof volumeMount>>;
