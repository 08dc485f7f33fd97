// A form derived from a JSON Schema of the spec (the control plane's request bodies): one
// input per property, nested objects as groups, arrays of objects as rows. Errors from a
// 422 reply are shown next to the field their `loc` names; the rest above the buttons.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { controlPlaneSchemas } from 'virtual:spec';
import { ApiError } from './api';

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  description?: string;
  deprecated?: boolean;
  default?: unknown;
  format?: string;
  pattern?: string;
}

type Value = Record<string, unknown>;
type Path = (string | number)[];

const resolve = (schema: JsonSchema): JsonSchema => (schema.$ref ? resolve(controlPlaneSchemas[schema.$ref.split('/').pop()!]) : schema);

/** The schema without its `null` alternative: `anyOf [X, null]` and `type [t, null]` become X / t. */
function nonNull(schema: JsonSchema): JsonSchema {
  const s = resolve(schema);
  if (s.anyOf) {
    const rest = s.anyOf.filter((alt) => resolve(alt).type !== 'null');
    if (rest.length === 1) return { ...nonNull(rest[0]), description: s.description ?? resolve(rest[0]).description };
  }
  if (Array.isArray(s.type)) {
    const types = s.type.filter((t) => t !== 'null');
    return { ...s, type: types.length === 1 ? types[0] : types, enum: s.enum?.filter((v) => v !== null) };
  }
  return s;
}

const key = (path: Path) => path.join('.');
const fieldId = (path: Path, prefix = 'field') => `${prefix}-${path.join('-')}`;
/** The first sentence of a description ("e.g." and "i.e." do not end one). */
export const firstSentence = (text = '') => {
  const end = text.search(/(?<!\b(?:e\.g|i\.e))\.(\s|$)/);
  return (end < 0 ? text : text.slice(0, end + 1)).replace(/`/g, '');
};

const WORDS: Record<string, string> = { url: 'URL', uri: 'URI', id: 'ID', cpu: 'CPU', mb: 'MB', sha: 'SHA', json: 'JSON' };
/** A property name as people say it: `repo_url` → "Repo URL". */
export function humanize(name: string): string {
  const words = name
    .split(/[_\s]+/)
    .filter(Boolean)
    .map((w) => WORDS[w.toLowerCase()] ?? w.toLowerCase());
  return words.map((w, i) => (i === 0 && w === w.toLowerCase() ? w[0].toUpperCase() + w.slice(1) : w)).join(' ');
}

/** The default a description or the schema states (`default`, or "`dev` when omitted"). */
function defaultOf(schema: JsonSchema, description: string | undefined): string | undefined {
  if (schema.default !== undefined && !(Array.isArray(schema.default) && schema.default.length === 0)) return String(schema.default);
  return /`([^`]+)` when omitted|defaults to `([^`]+)`/
    .exec(description ?? '')
    ?.slice(1)
    .find(Boolean);
}

/** A pattern like `^[a-zA-Z0-9][a-zA-Z0-9-_]*$` in words; other patterns as they are. */
export function describePattern(pattern: string): string {
  const classes = /^\^\[([^\]]+)\]\[([^\]]+)\][*+]\$$/.exec(pattern);
  if (!classes) return `must match ${pattern}`;
  const words = (cls: string) => {
    const parts: string[] = [];
    let rest = cls;
    if (/a-z/.test(rest) || /A-Z/.test(rest)) parts.push('letters');
    if (/0-9/.test(rest)) parts.push('digits');
    rest = rest.replace(/a-z|A-Z|0-9/g, '');
    parts.push(...[...rest].map((c) => `"${c}"`));
    return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} or ${parts.at(-1)}` : parts[0];
  };
  return `may contain only ${words(classes[2])}, and must start with ${words(classes[1])
    .replace(/letters/, 'a letter')
    .replace(/digits/, 'a digit')}`;
}

/**
 * Which values of the form's `source` a field is for, read from its description ("(`github`
 * only)", "(`external_docker`, `internal_docker`)"); undefined: for every source.
 */
function sourcesOf(schema: JsonSchema, description: string | undefined): string[] | undefined {
  const sources = (resolve(controlPlaneSchemas.Source ?? {}).enum ?? []) as string[];
  const named = [...(description ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((name) => sources.includes(name));
  return named.length ? [...new Set(named)] : undefined;
}

/** Set once: a patch cannot change it (its description says "Immutable"). */
const immutable = (description: string | undefined) => /^Immutable\b|\bImmutable\./.test(description ?? '');

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown> | undefined)?.[k], value);
}

function setAt(value: Value, path: Path, next: unknown): Value {
  const [head, ...rest] = path;
  const copy: any = Array.isArray(value) ? [...value] : { ...value };
  copy[head] = rest.length ? setAt((copy[head] ?? (typeof rest[0] === 'number' ? [] : {})) as Value, rest, next) : next;
  return copy;
}

/** Empty inputs are left out of the request (the server applies its defaults). */
export function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(prune);
  if (value && typeof value === 'object') {
    const out: Value = {};
    for (const [k, v] of Object.entries(value)) {
      if (v === '' || v === undefined) continue;
      out[k] = prune(v);
    }
    return out;
  }
  return value;
}

/** Field errors by dotted path (without the leading `body`), and the ones no field shows. */
export function errorsOf(error: unknown): { byField: Record<string, string[]>; general: string[] } {
  const byField: Record<string, string[]> = {};
  const general: string[] = [];
  if (error instanceof ApiError && error.status === 422 && Array.isArray((error.body as { detail?: unknown })?.detail)) {
    for (const item of (error.body as { detail: { loc: Path; msg: string }[] }).detail) {
      const loc = item.loc[0] === 'body' ? item.loc.slice(1) : item.loc;
      (byField[key(loc)] ??= []).push(item.msg);
    }
  } else if (error) general.push(error instanceof Error ? error.message : String(error));
  return { byField, general };
}

interface FormProps {
  /** A schema of the control plane's spec by name, or a JSON Schema (e.g. a graph's context_schema). */
  schema: string | JsonSchema;
  /** Shown as placeholders (e.g. the current values when patching). */
  placeholders?: Value;
  initial?: Value;
  submitLabel: string;
  /** Without it the form has no buttons: what is typed is told to `onChange` as it changes. */
  onSubmit?: (body: Value) => Promise<void>;
  onCancel?: () => void;
  /** Told the value (as it would be sent) whenever a field changes. */
  onChange?: (body: Value) => void;
  label: string;
  /** The start of the fields' ids (default `field`): two forms of one schema on a page need their own. */
  idPrefix?: string;
}

export function SchemaForm({ schema: schemaOrName, placeholders, initial, submitLabel, onSubmit, onCancel, onChange, label, idPrefix }: FormProps) {
  const schema = typeof schemaOrName === 'string' ? controlPlaneSchemas[schemaOrName] : schemaOrName;
  const [value, setValue] = useState<Value>(initial ?? {});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const { byField, general } = errorsOf(error);
  const source = (value.source ?? placeholders?.source) as string | undefined;
  const ctx: Ctx = {
    value,
    placeholders,
    byField,
    source,
    patching: placeholders !== undefined,
    idPrefix,
    set: (path, next) =>
      setValue((v) => {
        const changed = setAt(v, path, next);
        onChange?.(prune(forSource(schema, changed, source)) as Value);
        return changed;
      }),
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      // what was typed in fields of another source (before switching source) is not sent
      await onSubmit?.(prune(forSource(schema, value, source)) as Value);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  // field errors no input shows (the body itself, or a location the form has no field for)
  const leftover = Object.entries(byField)
    .filter(([k]) => !k || !hasField(schema, k.split('.')))
    .map(([k, msgs]) => `${k || 'body'}: ${msgs.join('; ')}`);
  return (
    <form class="schema-form" onSubmit={submit} noValidate aria-label={label}>
      <ObjectFields schema={schema} path={[]} ctx={ctx} />
      {[...general, ...leftover].length > 0 && (
        <div class="error" role="alert">
          {[...general, ...leftover].map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
      {onSubmit && (
        <div class="buttons">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Sending…' : submitLabel}
          </button>
          {onCancel && (
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
      )}
    </form>
  );
}

/** Whether the form has a field (or group) for this location. */
function hasField(schema: JsonSchema, loc: string[]): boolean {
  let current: JsonSchema | undefined = schema;
  for (const segment of loc) {
    const s: JsonSchema = nonNull(current);
    if (s.type === 'array' && s.items && /^\d+$/.test(segment)) current = s.items;
    else current = s.properties?.[segment];
    if (!current || resolve(current).deprecated) return false;
  }
  return true;
}

/** The value without the fields that are for other sources than `source` (below the top level). */
function forSource(schema: JsonSchema, value: Value, source: string | undefined, depth = 0): Value {
  const s = nonNull(schema);
  if (!s.properties || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Value = {};
  for (const [name, v] of Object.entries(value)) {
    const prop = s.properties[name];
    if (prop && depth > 0 && !appliesTo(prop, source)) continue;
    out[name] = prop && v && typeof v === 'object' && !Array.isArray(v) ? forSource(prop, v as Value, source, depth + 1) : v;
  }
  return out;
}

/** A property's own description (beside a $ref) first, else its type's. */
const descriptionOf = (schema: JsonSchema) => schema.description ?? resolve(schema).description ?? nonNull(schema).description;
const appliesTo = (schema: JsonSchema, source: string | undefined) => {
  const sources = sourcesOf(schema, descriptionOf(schema));
  return !source || !sources || sources.includes(source);
};

interface Ctx {
  value: Value;
  placeholders?: Value;
  /** The chosen source: fields of other sources are hidden. */
  source?: string;
  /** Editing something that exists: immutable fields are shown, read-only. */
  patching: boolean;
  byField: Record<string, string[]>;
  idPrefix?: string;
  set: (path: Path, next: unknown) => void;
}

function ObjectFields({ schema, path, ctx }: { schema: JsonSchema; path: Path; ctx: Ctx }) {
  const s = nonNull(schema);
  const required = new Set(s.required ?? []);
  return (
    <>
      {Object.entries(s.properties ?? {})
        .filter(([, prop]) => !resolve(prop).deprecated && (path.length === 0 || appliesTo(prop, ctx.source)))
        .map(([name, prop]) => (
          <Property key={name} name={name} schema={prop} path={[...path, name]} required={required.has(name)} ctx={ctx} />
        ))}
    </>
  );
}

function Property({ name, schema, path, required, ctx }: { name: string; schema: JsonSchema; path: Path; required: boolean; ctx: Ctx }) {
  const s = nonNull(schema);
  const fullDescription = descriptionOf(schema);
  const description = firstSentence(fullDescription);
  const label = humanize(name);
  // a broken pattern is said in words (the server's message quotes the regular expression)
  const errors = ctx.byField[key(path)]?.map((msg) => (s.pattern && /pattern/i.test(msg) ? `${label} ${describePattern(s.pattern)}.` : msg));
  const errorBlock = errors && (
    <p class="field-error" id={`${fieldId(path, ctx.idPrefix)}-error`}>
      {errors.join('; ')}
    </p>
  );

  if (s.type === 'object' || s.properties) {
    const group = (
      <fieldset class="group">
        <legend>
          {label}
          {required && <span class="required"> (required)</span>}
        </legend>
        {description && <p class="hint">{description}</p>}
        {errorBlock}
        <ObjectFields schema={s} path={path} ctx={ctx} />
      </fieldset>
    );
    // optional groups of optional settings stay folded until asked for
    const hasErrorInside = Object.keys(ctx.byField).some((k) => k.startsWith(key(path) + '.'));
    if (!required && !(s.required ?? []).length && path.length > 1)
      return (
        <details class="optional-group" open={hasErrorInside || getAt(ctx.value, path) !== undefined}>
          <summary>{label} (optional)</summary>
          {group}
        </details>
      );
    return group;
  }
  if (s.type === 'array' && s.items)
    return <ArrayField name={name} schema={s} path={path} required={required} ctx={ctx} description={description} errorBlock={errorBlock} />;

  const id = fieldId(path, ctx.idPrefix);
  const current = getAt(ctx.value, path);
  const placeholder = getAt(ctx.placeholders, path);
  const fixed = ctx.patching && immutable(fullDescription);
  const describedBy = [(description || fixed) && `${id}-hint`, errors && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const common = { id, name: key(path), 'aria-describedby': describedBy, 'aria-invalid': errors ? true : undefined, 'aria-required': required || undefined };
  const fallback = defaultOf(s, fullDescription);
  let input: JSX.Element;
  if (s.enum || s.type === 'boolean') {
    const options = s.enum ?? [true, false];
    input = (
      <select
        {...common}
        disabled={fixed}
        value={current === undefined ? '' : String(current)}
        onChange={(e) => ctx.set(path, parseChoice((e.target as HTMLSelectElement).value, options))}
      >
        <option value="">
          {placeholder !== undefined && placeholder !== null
            ? `(unchanged: ${String(placeholder)})`
            : required
              ? 'choose…'
              : fallback !== undefined
                ? `(default: ${fallback})`
                : '(not set)'}
        </option>
        {options.map((o) => (
          <option key={String(o)} value={String(o)}>
            {String(o)}
          </option>
        ))}
      </select>
    );
  } else {
    const numeric = s.type === 'integer' || s.type === 'number';
    input = (
      <input
        {...common}
        type="text"
        inputMode={numeric ? 'decimal' : undefined}
        readOnly={fixed}
        value={current === undefined || current === null ? (fixed && placeholder != null ? String(placeholder) : '') : String(current)}
        placeholder={placeholder !== undefined && placeholder !== null ? String(placeholder) : fallback !== undefined ? `default: ${fallback}` : undefined}
        onInput={(e) => {
          const raw = (e.target as HTMLInputElement).value;
          ctx.set(path, raw === '' ? undefined : numeric && Number.isFinite(Number(raw)) ? Number(raw) : raw);
        }}
      />
    );
  }
  return (
    <div class={`field${errors ? ' has-error' : ''}`}>
      <label for={id}>
        {label}
        {required && <span class="required"> (required)</span>}
      </label>
      {input}
      {(description || fixed) && (
        <p class="hint" id={`${id}-hint`}>
          {fixed ? 'Set at creation; cannot change.' : description}
        </p>
      )}
      {errorBlock}
    </div>
  );
}

const parseChoice = (raw: string, options: unknown[]) => (raw === '' ? undefined : options.find((o) => String(o) === raw));

function ArrayField({
  name,
  schema,
  path,
  required,
  ctx,
  description,
  errorBlock,
}: {
  name: string;
  schema: JsonSchema;
  path: Path;
  required: boolean;
  ctx: Ctx;
  description: string;
  errorBlock: JSX.Element | undefined;
}) {
  const rows = (getAt(ctx.value, path) as Value[] | undefined) ?? [];
  const item = nonNull(schema.items!);
  return (
    <fieldset class="group">
      <legend>
        {humanize(name)}
        {required && <span class="required"> (required)</span>}
      </legend>
      {description && <p class="hint">{description}</p>}
      {errorBlock}
      {rows.map((_, index) => (
        <div class="array-row" key={index}>
          {item.properties ? (
            <ObjectFields schema={item} path={[...path, index]} ctx={ctx} />
          ) : (
            <Property name={`${name}[${index}]`} schema={item} path={[...path, index]} required ctx={ctx} />
          )}
          <button
            type="button"
            onClick={() =>
              ctx.set(
                path,
                rows.filter((__, i) => i !== index),
              )
            }
          >
            Remove {humanize(name).replace(/s$/, '').toLowerCase()} {index + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => ctx.set(path, [...rows, item.properties ? {} : ''])}>
        Add {humanize(name).replace(/s$/, '').toLowerCase()}
      </button>
    </fieldset>
  );
}
