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
const fieldId = (path: Path) => `field-${path.join('-')}`;
const firstSentence = (text = '') => {
  const end = text.search(/\.(\s|$)/);
  return (end < 0 ? text : text.slice(0, end + 1)).replace(/`/g, '');
};

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
  schema: string;
  /** Shown as placeholders (e.g. the current values when patching). */
  placeholders?: Value;
  initial?: Value;
  submitLabel: string;
  onSubmit: (body: Value) => Promise<void>;
  onCancel?: () => void;
  label: string;
}

export function SchemaForm({ schema, placeholders, initial, submitLabel, onSubmit, onCancel, label }: FormProps) {
  const [value, setValue] = useState<Value>(initial ?? {});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const { byField, general } = errorsOf(error);
  const ctx: Ctx = { value, placeholders, byField, set: (path, next) => setValue((v) => setAt(v, path, next)) };

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(prune(value) as Value);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  // field errors no input shows (the body itself, or a location the form has no field for)
  const leftover = Object.entries(byField)
    .filter(([k]) => !k || !hasField(controlPlaneSchemas[schema], k.split('.')))
    .map(([k, msgs]) => `${k || 'body'}: ${msgs.join('; ')}`);
  return (
    <form class="schema-form" onSubmit={submit} noValidate aria-label={label}>
      <ObjectFields schema={controlPlaneSchemas[schema]} path={[]} ctx={ctx} />
      {[...general, ...leftover].length > 0 && (
        <div class="error" role="alert">
          {[...general, ...leftover].map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
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

interface Ctx {
  value: Value;
  placeholders?: Value;
  byField: Record<string, string[]>;
  set: (path: Path, next: unknown) => void;
}

function ObjectFields({ schema, path, ctx }: { schema: JsonSchema; path: Path; ctx: Ctx }) {
  const s = nonNull(schema);
  const required = new Set(s.required ?? []);
  return (
    <>
      {Object.entries(s.properties ?? {})
        .filter(([, prop]) => !resolve(prop).deprecated)
        .map(([name, prop]) => (
          <Property key={name} name={name} schema={prop} path={[...path, name]} required={required.has(name)} ctx={ctx} />
        ))}
    </>
  );
}

function Property({ name, schema, path, required, ctx }: { name: string; schema: JsonSchema; path: Path; required: boolean; ctx: Ctx }) {
  const s = nonNull(schema);
  const description = firstSentence(resolve(schema).description ?? s.description);
  const errors = ctx.byField[key(path)];
  const errorBlock = errors && (
    <p class="field-error" id={`${fieldId(path)}-error`}>
      {errors.join('; ')}
    </p>
  );

  if (s.type === 'object' || s.properties) {
    const group = (
      <fieldset class="group">
        <legend>
          <code>{name}</code>
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
          <summary>{name} (optional)</summary>
          {group}
        </details>
      );
    return group;
  }
  if (s.type === 'array' && s.items) return <ArrayField name={name} schema={s} path={path} required={required} ctx={ctx} description={description} errorBlock={errorBlock} />;

  const id = fieldId(path);
  const current = getAt(ctx.value, path);
  const placeholder = getAt(ctx.placeholders, path);
  const describedBy = [description && `${id}-hint`, errors && `${id}-error`].filter(Boolean).join(' ') || undefined;
  const common = { id, name: key(path), 'aria-describedby': describedBy, 'aria-invalid': errors ? true : undefined, 'aria-required': required || undefined };
  let input: JSX.Element;
  if (s.enum || s.type === 'boolean') {
    const options = s.enum ?? [true, false];
    input = (
      <select {...common} value={current === undefined ? '' : String(current)} onChange={(e) => ctx.set(path, parseChoice((e.target as HTMLSelectElement).value, options))}>
        <option value="">{placeholder !== undefined && placeholder !== null ? `(unchanged: ${String(placeholder)})` : required ? 'choose…' : '(not set)'}</option>
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
        value={current === undefined || current === null ? '' : String(current)}
        placeholder={placeholder !== undefined && placeholder !== null ? String(placeholder) : undefined}
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
        <code>{name}</code>
        {required && <span class="required"> (required)</span>}
      </label>
      {input}
      {description && (
        <p class="hint" id={`${id}-hint`}>
          {description}
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
        <code>{name}</code>
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
            Remove {name} {index + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => ctx.set(path, [...rows, item.properties ? {} : ''])}>
        Add {name.replace(/s$/, '')}
      </button>
    </fieldset>
  );
}
