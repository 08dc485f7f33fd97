// A volume of the deployment's pod: one of the sources the "restricted" Pod Security Standard
// allows and the seed names (nfs and everything that reaches the node are not), each built
// from the members Kubernetes gives it, every reference naming only what the deployment owns.
// No source gives the pod a service account token (projected serviceAccountToken): the pods
// agentplane renders talk to no cluster API.
import { flag, list, mapOf, oneOf, shape, text } from './admit.ts';
import { dnsLabel } from './containers.ts';
import { fileMode, keyToPaths, quantity, relativePath } from './paths.ts';
import { owned, ownSecret, type Owner } from './references.ts';

const SOURCES = ['configMap', 'secret', 'emptyDir', 'persistentVolumeClaim', 'projected', 'downwardAPI', 'csi'] as const;
const RESTRICTED = `volumes are not allowed (Pod Security Standard "restricted" allows ${SOURCES.join(', ')})`;

const downwardItems = list(
  shape(
    {
      path: relativePath,
      fieldRef: shape(
        {
          apiVersion: oneOf(['v1']),
          fieldPath: text((path) =>
            /^metadata\.(name|namespace|uid|labels|annotations)$|^metadata\.(labels|annotations)\['[^']{1,317}'\]$/.test(path)
              ? undefined
              : `fieldPath ${JSON.stringify(path)} is not one of the pod's own metadata fields.`,
          ),
        },
        { required: ['fieldPath'] },
      ),
      resourceFieldRef: shape(
        {
          containerName: dnsLabel,
          resource: oneOf(['limits.cpu', 'limits.memory', 'limits.ephemeral-storage', 'requests.cpu', 'requests.memory', 'requests.ephemeral-storage']),
          divisor: quantity,
        },
        { required: ['resource'] },
      ),
      mode: fileMode,
    },
    { required: ['path'], exactlyOne: ['fieldRef', 'resourceFieldRef'] },
  ),
);

function projectedSource(owner: Owner) {
  return shape(
    {
      secret: shape({ name: ownSecret(owner), items: keyToPaths, optional: flag }, { required: ['name'] }),
      configMap: shape({ name: owned(owner, 'ConfigMap'), items: keyToPaths, optional: flag }, { required: ['name'] }),
      downwardAPI: shape({ items: downwardItems }),
    },
    {
      exactlyOne: ['secret', 'configMap', 'downwardAPI'],
      unknown: (key) =>
        key === 'serviceAccountToken'
          ? 'a projected serviceAccountToken is not allowed: the pods agentplane renders carry no cluster credentials.'
          : `\`${key}\` is not a projected source agentplane renders (allowed: secret, configMap, downwardAPI).`,
    },
  );
}

export function volume(owner: Owner) {
  return shape(
    {
      name: dnsLabel,
      configMap: shape({ name: owned(owner, 'ConfigMap'), items: keyToPaths, defaultMode: fileMode, optional: flag }, { required: ['name'] }),
      secret: shape({ secretName: ownSecret(owner), items: keyToPaths, defaultMode: fileMode, optional: flag }, { required: ['secretName'] }),
      emptyDir: shape({ medium: oneOf(['', 'Memory']), sizeLimit: quantity }),
      persistentVolumeClaim: shape({ claimName: owned(owner, 'PersistentVolumeClaim'), readOnly: flag }, { required: ['claimName'] }),
      projected: shape({ sources: list(projectedSource(owner)), defaultMode: fileMode }, { required: ['sources'] }),
      downwardAPI: shape({ items: downwardItems, defaultMode: fileMode }),
      csi: shape(
        {
          // a driver acts for the node (secrets-store.csi.k8s.io reads any SecretProviderClass named): the operator's list only
          driver: text((d) =>
            owner.workload.csiDrivers.includes(d)
              ? undefined
              : `CSI driver ${JSON.stringify(d)} is not one the operator allows (AGENTPLANE_CSI_DRIVERS; allowed: ${owner.workload.csiDrivers.join(', ') || 'none'}).`,
          ),
          readOnly: flag,
          fsType: text(),
          volumeAttributes: mapOf(() => undefined, text()),
          nodePublishSecretRef: shape({ name: ownSecret(owner) }, { required: ['name'] }),
        },
        { required: ['driver'] },
      ),
    },
    {
      required: ['name'],
      exactlyOne: [...SOURCES],
      unknown: (key) => `${key} ${RESTRICTED}.`,
    },
  );
}

export type AdmittedVolume = NonNullable<ReturnType<ReturnType<typeof volume>>>;
