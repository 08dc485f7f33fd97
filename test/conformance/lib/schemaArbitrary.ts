// JSON Schema (the 2020-12 subset the spec uses) → fast-check arbitrary of values that the
// schema accepts. Generic: no knowledge of any operation. Composition keywords generate
// each branch; callers filter the result through the spec's own validator, so a branch
// that overlaps another (oneOf) or a grapheme that breaks a length bound never leaks out.
import fc from 'fast-check';
import { resolve, type Json } from './contract.ts';

export interface SchemaArbitraryOptions {
  /** Mix the schema's own `examples`/`example` in with generated values. */
  useExamples?: boolean;
  /** Beyond this depth only required properties and minimal arrays are generated. */
  maxDepth?: number;
}

const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];
const cache = new WeakMap<object, Map<string, fc.Arbitrary<unknown>>>();

export function schemaArbitrary(doc: Json, schema: Json, options: SchemaArbitraryOptions = {}, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined) return anyJson();
  if (schema === false) throw new Error('schema false accepts nothing');
  const key = `${options.useExamples ? 'e' : ''}${Math.min(depth, (options.maxDepth ?? 5) + 1)}`;
  let perSchema = cache.get(schema);
  if (!perSchema) cache.set(schema, (perSchema = new Map()));
  const hit = perSchema.get(key);
  if (hit) return hit;
  const arb = build(doc, schema, options, depth);
  perSchema.set(key, arb);
  return arb;
}

function build(doc: Json, schema0: Json, options: SchemaArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  const schema = resolve(doc, schema0);
  if (schema !== schema0) return schemaArbitrary(doc, schema, options, depth);
  const generated = core(doc, schema, options, depth);
  const examples = [...(Array.isArray(schema.examples) ? schema.examples : []), ...(schema.example !== undefined ? [schema.example] : [])];
  if (options.useExamples && examples.length) {
    return fc.oneof({ withCrossShrink: true }, { weight: 3, arbitrary: generated }, { weight: 1, arbitrary: fc.constantFrom(...examples) });
  }
  return generated;
}

function core(doc: Json, schema: Json, options: SchemaArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const branches = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(branches)) {
    const { oneOf: _o, anyOf: _a, ...rest } = schema;
    const base = Object.keys(rest).some((k) => ['type', 'properties', 'items'].includes(k)) ? rest : {};
    return fc.oneof(...branches.map((b: Json) => schemaArbitrary(doc, Object.keys(base).length ? { ...base, ...resolve(doc, b) } : b, options, depth)));
  }
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : inferTypes(schema);
  if (types.length === 0) return anyJson();
  if (types.length > 1) return fc.oneof(...types.map((t) => typed(doc, schema, t, options, depth)));
  return typed(doc, schema, types[0], options, depth);
}

function inferTypes(schema: Json): string[] {
  if (schema.properties || schema.additionalProperties !== undefined || schema.required) return ['object'];
  if (schema.items) return ['array'];
  if (schema.format || schema.pattern || schema.minLength !== undefined || schema.maxLength !== undefined) return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

function typed(doc: Json, schema: Json, type: string, options: SchemaArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer(bounds(schema, true));
    case 'number': {
      const b = bounds(schema, false);
      return fc.oneof(
        fc.integer(bounds(schema, true)),
        fc.double({
          min: b.min,
          max: b.max,
          noNaN: true,
          noDefaultInfinity: true,
          minExcluded: schema.exclusiveMinimum !== undefined,
          maxExcluded: schema.exclusiveMaximum !== undefined,
        }),
      );
    }
    case 'string':
      return stringArbitrary(schema);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? Infinity, minLength + (depth >= (options.maxDepth ?? 5) ? 0 : 3));
      const items = schemaArbitrary(doc, schema.items ?? true, options, depth + 1);
      return fc
        .array(items, { minLength, maxLength, ...(schema.uniqueItems ? {} : {}) })
        .map((a) => (schema.uniqueItems ? dedupe(a) : a))
        .filter((a) => a.length >= minLength);
    }
    case 'object':
      return objectArbitrary(doc, schema, options, depth);
    default:
      if (!TYPES.includes(type)) throw new Error(`unsupported type ${type}`);
      return anyJson();
  }
}

function bounds(schema: Json, integer: boolean): { min: number; max: number } {
  const big = integer ? 2 ** 31 - 1 : 1e9;
  let min = schema.minimum ?? -big;
  let max = schema.maximum ?? big;
  if (schema.exclusiveMinimum !== undefined) min = integer ? Math.floor(schema.exclusiveMinimum) + 1 : schema.exclusiveMinimum;
  if (schema.exclusiveMaximum !== undefined) max = integer ? Math.ceil(schema.exclusiveMaximum) - 1 : schema.exclusiveMaximum;
  if (integer) return { min: Math.ceil(min), max: Math.floor(max) };
  return { min, max };
}

function stringArbitrary(schema: Json): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? Math.max(minLength + 24, 24);
  // declared bounds only: formats and patterns have their own natural lengths
  const fits = (s: string) => [...s].length >= minLength && [...s].length <= (schema.maxLength ?? Infinity);
  switch (schema.format) {
    case 'uuid':
      return fc.uuid();
    case 'date-time':
      return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'uri':
      return fc.webUrl().filter(fits);
  }
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter(fits);
  const cap = Math.min(maxLength, minLength + 40);
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength: cap }) },
    { weight: 1, arbitrary: fc.string({ minLength, maxLength: cap, unit: 'grapheme' }).filter(fits) },
    // long values, near the bound, that still shrink to short ones
    { weight: 1, arbitrary: fc.string({ minLength, maxLength, size: 'max' }) },
  );
}

function objectArbitrary(doc: Json, schema: Json, options: SchemaArbitraryOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props: Record<string, Json> = schema.properties ?? {};
  const required: string[] = schema.required ?? [];
  const deep = depth >= (options.maxDepth ?? 5);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, s] of Object.entries(props)) {
    if (deep && !required.includes(name)) continue;
    model[name] = schemaArbitrary(doc, s, options, depth + 1);
  }
  // required names that are not declared as properties still need a value
  for (const name of required) if (!(name in model)) model[name] = schemaArbitrary(doc, additional(schema) ?? true, options, depth + 1);
  const record = fc.record(model, { requiredKeys: required.filter((r) => r in model) });
  const extra = additional(schema);
  if (extra === undefined || deep) return record;
  const maxKeys = Math.max(0, Math.min(3, (schema.maxProperties ?? Infinity) - Object.keys(props).length));
  const names = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in props) && k !== '__proto__');
  const dict = fc.dictionary(names, schemaArbitrary(doc, extra, options, depth + 1), { maxKeys });
  return fc
    .tuple(record, dict)
    .map(([r, d]) => ({ ...d, ...r }))
    .filter((o) => schema.maxProperties === undefined || Object.keys(o).length <= schema.maxProperties);
}

/** The schema for undeclared properties, or undefined when none may be added. */
function additional(schema: Json): Json | undefined {
  if (schema.additionalProperties === false) return undefined;
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') return schema.additionalProperties;
  // `additionalProperties` absent or true: extra keys are allowed but nothing demands them
  return schema.properties ? undefined : true;
}

function dedupe(values: unknown[]): unknown[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const k = JSON.stringify(v);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

let json: fc.Arbitrary<unknown> | undefined;
/** Free-form JSON, kept small. */
export function anyJson(): fc.Arbitrary<unknown> {
  return (json ??= fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v))));
}
