// Values of the pod spec that name a place or an amount: paths inside a volume (never out of
// it), file modes, and Kubernetes quantities.
import { integer, list, shape, text, type Rule } from './admit.ts';

/** A path inside a volume: relative, without "..". */
export const relativePath = text((path) =>
  path.length > 0 && !path.startsWith('/') && !path.split('/').includes('..') ? undefined : 'must be a relative path without "..".',
);

const QUANTITY = /^[+]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+|[KMGTPE]i|[numkMGTPE])?$/;

/** A Kubernetes quantity: 500m, 1.5, 256Mi, 1e3, or a plain non-negative number. */
export const quantity: Rule<string | number> = (value, at, problems) => {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value === 'string' && QUANTITY.test(value)) return value;
  problems.push({ loc: at, msg: `${JSON.stringify(value)} is not a Kubernetes quantity (e.g. 500m, 256Mi).` });
  return undefined;
};

/** A file mode of a projected file (0 to 0777). */
export const fileMode = integer(0, 0o777);

/** The items of a ConfigMap or Secret volume: which key goes to which file. */
export const keyToPaths = list(shape({ key: text(), path: relativePath, mode: fileMode }, { required: ['key', 'path'] }));
