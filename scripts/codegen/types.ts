// types.gen.ts: TypeScript types for every component schema and every operation part,
// through json-schema-to-typescript, and the value list of every component that is a string
// enum (RunStatus → RUN_STATUSES), so code that walks a vocabulary reads it from the spec.
import { compile } from 'json-schema-to-typescript';
import { writeFile } from './output.ts';
import { rewriteRefs, type Json } from './schemas.ts';

/** Keywords that say nothing of a value's type: a schema of these alone takes any value. */
const ANNOTATIONS = new Set(['description', 'default', 'deprecated', 'readOnly', 'writeOnly', '$comment']);

/** Drops keywords json-schema-to-typescript would turn into extra named types or noise. */
function forTypes(node: Json): Json {
  if (Array.isArray(node)) return node.map(forTypes);
  if (node && typeof node === 'object') {
    // json-schema-to-typescript types a schema with a description alone as an object (`{}` as
    // unknown); it takes any JSON value, so it is `unknown` too
    if (typeof node.description === 'string' && Object.keys(node).every((k) => ANNOTATIONS.has(k))) return { ...node, tsType: 'unknown' };
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'title' || k === 'examples' || k === 'example' || k.startsWith('x-')) continue;
      out[k] = forTypes(v);
    }
    return out;
  }
  return node;
}

/** `RunStatus` → `RUN_STATUSES`, `MultitaskStrategy` → `MULTITASK_STRATEGIES`, `A2AV1Role` → `A2AV1_ROLES`. */
export function valueListName(typeName: string): string {
  const snake = typeName
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .replace(/([A-Z0-9])([A-Z][a-z])/g, '$1_$2')
    .toUpperCase();
  if (/[^AEIOU]Y$/.test(snake)) return snake.slice(0, -1) + 'IES';
  if (/(S|X|Z|CH|SH)$/.test(snake)) return snake + 'ES';
  return snake + 'S';
}

/** One `as const` array per string-enum component, in the spec's order, checked against its type. */
function valueLists(components: Json): string {
  const lists: string[] = [];
  for (const [name, schema] of Object.entries<Json>(components)) {
    const values = schema?.enum;
    if (!Array.isArray(values) || !values.every((value) => typeof value === 'string')) continue;
    lists.push(
      `/** Every value of ${name}, in the spec's order. */\n` +
        `export const ${valueListName(name)} = ${JSON.stringify(values)} as const satisfies readonly ${name}[];\n`,
    );
  }
  return lists.length ? '\n' + lists.join('\n') : '';
}

export async function writeTypes(outDir: string, header: string, typeName: string, components: Json, extra: Json): Promise<void> {
  const definitions: Json = {};
  for (const [name, schema] of Object.entries(components)) definitions[name] = forTypes(rewriteRefs(schema, '#/definitions/'));
  for (const [name, schema] of Object.entries(extra)) definitions[name] = forTypes(rewriteRefs(schema, '#/definitions/'));
  for (const [name, schema] of Object.entries<Json>(definitions)) schema.title = name;
  const ts = await compile(
    { title: `${typeName}Schemas`, type: 'object', additionalProperties: false, properties: {}, definitions } as Json,
    `${typeName}Schemas`,
    {
      bannerComment: '',
      additionalProperties: false,
      declareExternallyReferenced: true,
      unreachableDefinitions: true,
      format: true,
      strictIndexSignatures: false,
    },
  );
  writeFile(outDir, 'types.gen.ts', header + '/* eslint-disable */\n' + ts + valueLists(components));
}
