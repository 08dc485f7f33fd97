// methods.gen.ts of an OpenRPC document: the method table the JSON-RPC dispatcher binds by
// name, and the Methods interface with one member per method.
import type { MethodSpec } from '../../src/runtime/contract.ts';
import { CONTRACT_IMPORT, ident, pascal, writeFile } from './output.ts';
import { resolveLocal, typeFor, type Json } from './schemas.ts';

export interface MethodSchemas {
  methods: (MethodSpec & { resultType: string })[];
  params: Record<string, Json>;
  results: Record<string, Json>;
  types: Json;
}

export function collectMethods(doc: Json, absolute: (schema: Json) => Json): MethodSchemas {
  const resolve = (node: Json) => (node?.$ref && !node.$ref.startsWith('#/components/schemas/') ? resolveLocal(doc, node.$ref) : node);
  const out: MethodSchemas = { methods: [], params: {}, results: {}, types: {} };
  for (const m0 of doc.methods) {
    const m = resolve(m0);
    const P = pascal(m.name);
    // by-name params: every member is named (an empty name is an invalid parameter)
    const params: Json = { type: 'object', properties: {}, required: [] as string[], propertyNames: { minLength: 1 } };
    for (const p0 of m.params ?? []) {
      const p = resolve(p0);
      params.properties[p.name] = p.schema;
      if (p.required) params.required.push(p.name);
    }
    const result = resolve(m.result);
    const key = ident(m.name);
    out.params[key] = absolute(params);
    out.results[key] = absolute(result.schema);
    out.types[`${P}Params`] = params;
    const resultType = typeFor(result.schema, `${P}Result`, out.types);
    const errors = (m.errors ?? []).map((e: Json) => resolve(e)).map((e: Json) => ({ code: e.code, message: e.message }));
    out.methods.push({ name: m.name, summary: m.summary ?? '', streaming: !!m['x-streaming'], validator: key, errors, resultType });
  }
  return out;
}

export function writeMethodTable(outDir: string, header: string, typeName: string, methods: MethodSchemas['methods']): void {
  const lines: string[] = [header];
  lines.push(`import type * as T from './types.gen.ts';`);
  const outcomes = methods.some((m) => m.streaming) ? 'RpcOutcome, RpcStreamOutcome' : 'RpcOutcome';
  lines.push(`import type { MethodSpec, ${outcomes} } from '${CONTRACT_IMPORT}';\n`);
  lines.push(
    `export const methods: readonly MethodSpec[] = ${JSON.stringify(
      methods.map(({ resultType: _type, ...m }) => m),
      null,
      2,
    )};\n`,
  );
  lines.push(`/** One member per JSON-RPC method name. */`);
  lines.push(`export interface ${typeName}Methods<Ctx> {`);
  for (const m of methods) {
    const outcome = m.streaming ? `RpcStreamOutcome<T.${m.resultType}>` : `RpcOutcome<T.${m.resultType}>`;
    lines.push(`  ${JSON.stringify(m.name)}(params: T.${pascal(m.name)}Params, ctx: Ctx): Promise<${outcome}>;`);
  }
  lines.push(`}\n`);
  lines.push(`export const methodNames = ${JSON.stringify(methods.map((m) => m.name))} as const;`);
  writeFile(outDir, 'methods.gen.ts', lines.join('\n') + '\n');
}
