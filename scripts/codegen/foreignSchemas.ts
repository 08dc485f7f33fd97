// Schemas an OpenAPI document takes from another spec document instead of writing them again:
// `$ref: './a2a-v1.openrpc.json#/components/schemas/Task'` (the A2A v1.0 messages, which the
// OpenRPC document types from spec/a2a.proto) becomes `#/components/schemas/A2AV1Task`, with
// Task and every schema it refers to copied under their prefixed names. So the HTTP+JSON
// operations and the JSON-RPC methods read one definition, and the bundled document (served,
// mocked, compiled into validators, serializers and types) holds no reference out of itself.
import fs from 'node:fs';
import path from 'node:path';
import type { Json } from './schemas.ts';

/** The documents whose schemas may be borrowed, by file name, with the prefix their names take. */
const LENDERS: Record<string, string> = { 'a2a-v1.openrpc.json': 'A2AV1' };

const FOREIGN = /^\.\/([^#]+)#\/components\/schemas\/([^/]+)$/;

export function inlineForeignSchemas(doc: Json, specDir: string): Json {
  const lenders = new Map<string, Json>();
  const schemas: Record<string, Json> = (doc.components ??= {}).schemas ?? (doc.components.schemas = {});
  const borrow = (file: string, name: string): string => {
    const prefix = LENDERS[file];
    if (!prefix) throw new Error(`$ref to ${file}: only ${Object.keys(LENDERS).join(', ')} may lend schemas`);
    const local = `${prefix}${name}`;
    if (schemas[local]) return local;
    if (!lenders.has(file)) lenders.set(file, JSON.parse(fs.readFileSync(path.join(specDir, file), 'utf8')));
    const source = lenders.get(file).components?.schemas?.[name];
    if (!source) throw new Error(`$ref to ${file}#/components/schemas/${name}: no such schema`);
    schemas[local] = {}; // named before it is walked, so a schema that refers to itself ends
    schemas[local] = rewrite(structuredClone(source), (ref) => {
      const inner = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
      if (!inner) throw new Error(`${file}#/components/schemas/${name}: cannot follow $ref ${ref}`);
      return `#/components/schemas/${borrow(file, inner[1])}`;
    });
    return local;
  };
  return rewrite(doc, (ref) => {
    const foreign = FOREIGN.exec(ref);
    return foreign ? `#/components/schemas/${borrow(foreign[1], foreign[2])}` : ref;
  });
}

/** Every `$ref` of a JSON value replaced by what `map` makes of it (in place). */
function rewrite(node: Json, map: (ref: string) => string): Json {
  if (Array.isArray(node)) node.forEach((item) => rewrite(item, map));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') node.$ref = map(value);
      else rewrite(value, map);
    }
  }
  return node;
}
