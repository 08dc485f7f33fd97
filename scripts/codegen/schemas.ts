// JSON Schema plumbing shared by the writers: `$ref` rewriting between a document's
// components and the `$defs` of one validator schema, and local `$ref` resolution.
export type Json = any;

/** Rewrites `#/components/schemas/X` refs to `prefix + X` throughout a schema tree. */
export function rewriteRefs(node: Json, prefix: string): Json {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, prefix));
  if (node && typeof node === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')) {
        out[k] = prefix + v.slice('#/components/schemas/'.length);
      } else if (k === 'examples' || k === 'example') {
        out[k] = v; // data, not schema
      } else out[k] = rewriteRefs(v, prefix);
    }
    return out;
  }
  return node;
}

/** The TypeScript name for a schema: a component's own name when it is a plain $ref, else `name` (registered in defs). */
export function typeFor(schema: Json, name: string, defs: Json): string {
  const ref = schema?.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/') && Object.keys(schema).length === 1) {
    return ref.slice('#/components/schemas/'.length);
  }
  defs[name] = schema ?? {};
  return name;
}

export function resolveLocal(doc: Json, ref: string): Json {
  return ref
    .slice(2)
    .split('/')
    .reduce((node: Json, part: string) => node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Follows local refs (parameters, responses, headers …) but stops at component schemas. */
export function deref<T = Json>(doc: Json, node: Json): T {
  let cur = node;
  while (cur && cur.$ref && !cur.$ref.startsWith('#/components/schemas/')) cur = resolveLocal(doc, cur.$ref);
  return cur;
}

/** The schema table of one document for validators: components as `$defs` under `schemaId`. */
export function validatorDefs(doc: Json, schemaId: string): { defs: Json; absolute: (schema: Json) => Json } {
  const defs: Json = {};
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) defs[name] = rewriteRefs(schema, '#/$defs/');
  return { defs, absolute: (schema: Json) => rewriteRefs(schema, `${schemaId}#/$defs/`) };
}
