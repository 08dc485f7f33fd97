// The pieces an allowlist is made of: each rule reads one value a tenant sent and BUILDS the
// value that will be rendered, or records why it is refused (the field's path and the rule).
// An object rule builds a new object from the keys it names and refuses every other key:
// nothing is ever copied or filtered from what was sent, so a key the rule does not know —
// in any letter case, which podman kube play (Go's encoding/json) would read as the known
// one — cannot reach a manifest. Written here rather than taken from a validation library:
// the rules need the deployment's own names, locs in the API's 422 shape, and the Go
// case-folding hint, and a parse that returns the built value with nothing else.

/** Where in the request: ['source_config', 'resource_spec', 'sidecars', 0, 'env', 1, 'valueFrom']. */
export type Loc = (string | number)[];

export interface Problem {
  loc: Loc;
  msg: string;
}

/** Reads `value` (never null or undefined: those are "not set") at `at`; answers the built value, or undefined with a problem recorded. */
export type Rule<T> = (value: unknown, at: Loc, problems: Problem[]) => T | undefined;

export type Built<R> = R extends Rule<infer T> ? T : never;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const isSet = (value: unknown) => value !== null && value !== undefined;

const refuse = (problems: Problem[], at: Loc, msg: string): undefined => {
  problems.push({ loc: at, msg });
  return undefined;
};

/** A string, checked by `check` (a message when it breaks a rule). */
export function text(check?: (value: string) => string | undefined): Rule<string> {
  return (value, at, problems) => {
    if (typeof value !== 'string') return refuse(problems, at, 'must be a string.');
    const broken = check?.(value);
    return broken ? refuse(problems, at, broken) : value;
  };
}

/** One of `allowed`, spelt exactly. */
export function oneOf<const T extends string>(allowed: readonly T[], why = ''): Rule<T> {
  return (value, at, problems) =>
    allowed.includes(value as T)
      ? (value as T)
      : refuse(problems, at, `must be ${allowed.map((a) => JSON.stringify(a)).join(' or ')}${why}, not ${JSON.stringify(value)}.`);
}

export const flag: Rule<boolean> = (value, at, problems) => (typeof value === 'boolean' ? value : refuse(problems, at, 'must be true or false.'));

/** Only `allowed` (the restricted profile's value of a boolean). */
export function only(allowed: boolean, msg: string): Rule<boolean> {
  return (value, at, problems) => (value === allowed ? allowed : refuse(problems, at, msg));
}

export function integer(min: number, max: number, msg?: string): Rule<number> {
  return (value, at, problems) =>
    Number.isInteger(value) && (value as number) >= min && (value as number) <= max
      ? (value as number)
      : refuse(problems, at, msg ?? `must be an integer from ${min} to ${max}.`);
}

export function decimal(min: number, max: number): Rule<number> {
  return (value, at, problems) =>
    typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
      ? value
      : refuse(problems, at, `must be a number from ${min} to ${max}.`);
}

export function list<T>(item: Rule<T>, max = 100): Rule<T[]> {
  return (value, at, problems) => {
    if (!Array.isArray(value)) return refuse(problems, at, 'must be an array.');
    if (value.length > max) return refuse(problems, at, `may hold at most ${max} items.`);
    const built: T[] = [];
    value.forEach((v, i) => {
      if (!isSet(v)) return void refuse(problems, [...at, i], 'must not be null.');
      const one = item(v, [...at, i], problems);
      if (one !== undefined) built.push(one);
    });
    return built;
  };
}

/** A map of names to values, each name checked by `key` (a message when it is refused). */
export function mapOf<T>(key: (name: string) => string | undefined, item: Rule<T>, max = 64): Rule<Record<string, T>> {
  return (value, at, problems) => {
    if (!isPlainObject(value)) return refuse(problems, at, 'must be an object.');
    const entries = Object.entries(value);
    if (entries.length > max) return refuse(problems, at, `may hold at most ${max} entries.`);
    const built: [string, T][] = [];
    for (const [name, v] of entries) {
      const broken = key(name);
      if (broken) {
        refuse(problems, [...at, name], broken);
        continue;
      }
      const one = isSet(v) ? item(v, [...at, name], problems) : refuse(problems, [...at, name], 'must not be null.');
      if (one !== undefined) built.push([name, one]);
    }
    // defines each name as an own property, "__proto__" included
    return Object.fromEntries(built);
  };
}

type Fields = Record<string, Rule<unknown>>;
export type Shape<F extends Fields> = { [K in keyof F]?: Built<F[K]> };

export interface ObjectOptions<F extends Fields> {
  /** Fields that must be set. */
  required?: (keyof F & string)[];
  /** Exactly one of these must be set (a volume's source, an env var's source). */
  exactlyOne?: (keyof F & string)[];
  /** The message for a key the shape does not know (default: it is not a field agentplane renders). */
  unknown?: (key: string) => string;
}

/** The Go spelling hint: why `key`, which differs from a known one by letter case only, is refused; undefined for any other key. */
export function caseVariantProblem(key: string, known: readonly string[]): string | undefined {
  const twin = known.find((k) => k !== key && k.toLowerCase() === key.toLowerCase());
  return twin
    ? `\`${key}\` is not \`${twin}\`: keys are matched exactly (podman reads them in any letter case, so a second spelling would stand in for the checked one).`
    : undefined;
}

/**
 * An object built from the fields `fields` names, in their order; a field sent as null is not
 * set. Every other key is refused where it is, naming it.
 */
export function shape<F extends Fields>(fields: F, options: ObjectOptions<F> = {}): Rule<Shape<F>> {
  const known = Object.keys(fields);
  return (value, at, problems) => {
    if (!isPlainObject(value)) return refuse(problems, at, 'must be an object.');
    const before = problems.length;
    for (const key of Object.keys(value)) {
      if (Object.hasOwn(fields, key)) continue;
      refuse(
        problems,
        [...at, key],
        caseVariantProblem(key, known) ?? options.unknown?.(key) ?? `\`${key}\` is not a field agentplane renders here (allowed: ${known.join(', ')}).`,
      );
    }
    // an unknown key says what is wrong: which fields are missing would only repeat it
    const strange = problems.length > before;
    const given = (key: string) => (Object.hasOwn(value, key) ? value[key] : undefined);
    const built: Record<string, unknown> = {};
    for (const key of known) {
      const v = given(key);
      if (!isSet(v)) continue;
      const one = fields[key]!(v, [...at, key], problems);
      if (one !== undefined) built[key] = one;
    }
    if (strange) return undefined;
    for (const key of options.required ?? []) if (!isSet(given(key))) refuse(problems, [...at, key], 'is required.');
    if (options.exactlyOne) {
      const set = options.exactlyOne.filter((k) => isSet(given(k)));
      if (set.length !== 1) refuse(problems, at, `must set exactly one of ${options.exactlyOne.join(', ')}${set.length ? ` (got ${set.join(', ')})` : ''}.`);
    }
    return problems.length > before ? undefined : (built as Shape<F>);
  };
}
