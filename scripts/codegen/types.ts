// types.gen.ts: TypeScript types for every component schema and every operation part,
// through json-schema-to-typescript.
import { compile } from 'json-schema-to-typescript';
import { writeFile } from './output.ts';
import { rewriteRefs, type Json } from './schemas.ts';

/** Drops keywords json-schema-to-typescript would turn into extra named types or noise. */
function forTypes(node: Json): Json {
  if (Array.isArray(node)) return node.map(forTypes);
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === 'title' || k === 'examples' || k === 'example' || k.startsWith('x-')) continue;
      out[k] = forTypes(v);
    }
    return out;
  }
  return node;
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
  writeFile(outDir, 'types.gen.ts', header + '/* eslint-disable */\n' + ts);
}
