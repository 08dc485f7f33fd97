// reply.serializers.gen.js and reply.serializers/: one fast-json-stringify serializer per distinct JSON response
// schema, compiled here rather than at start (compiling them all costs about a second, paid
// on every start of every server otherwise) and kept as reviewable code. A schema the
// serializer cannot compile fails `npm run generate`, never a running server.
import path from 'node:path';
import fastJson from 'fast-json-stringify';
import { jsLiteral, writeFile } from './output.ts';
import type { Json } from './schemas.ts';

const DEFS = 'agentplane-components';
/** Keywords whose value maps names to schemas. */
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas']);
const SHARED_MARK = '@@shared-components@@';
/** The shared components, built the first time a serializer that validates is built (not at start). */
const SHARED_CONST = 'components()';
const STANDALONE_REQUIRES: Record<string, string> = {
  "require('fast-json-stringify/lib/serializer')": 'FjsSerializer',
  "require('fast-json-stringify/lib/validator')": 'fjsValidator()',
};

/** The schema as fast-json-stringify reads it: component refs into one shared schema, examples gone, open objects kept open. */
function forSerializer(node: Json): Json {
  if (Array.isArray(node)) return node.map(forSerializer);
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [key, value] of Object.entries<Json>(node)) {
    if (NAMED_SCHEMAS.has(key) && value && typeof value === 'object') {
      // its keys are names (a property may well be called `examples`), each naming a schema
      out[key] = Object.fromEntries(Object.entries<Json>(value).map(([name, schema]) => [name, forSerializer(schema)]));
      continue;
    }
    if (key === 'example' || key === 'examples') continue;
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
      out[key] = `${DEFS}#/definitions/${value.slice('#/components/schemas/'.length)}`;
    } else out[key] = forSerializer(value);
  }
  const types = Array.isArray(out.type) ? out.type : [out.type];
  // JSON Schema leaves an object without `properties` open; fast-json-stringify would write it as {}
  if (types.includes('object') && out.properties === undefined && out.additionalProperties === undefined && out.patternProperties === undefined) {
    out.additionalProperties = true;
  }
  return out;
}

/**
 * fast-json-stringify's standalone CommonJS module as a factory function of an ES module. The
 * components it embeds for its validator (the same in every serializer) become one shared constant.
 */
function factoryOf(code: string, name: string, shared: { json?: string }): string {
  let body = code.replace(/^\s*'use strict'\s*$/m, '');
  body = body.replace(/^const validatorState = (.*)$/m, (line, json: string) => {
    const state = JSON.parse(json);
    const components = JSON.stringify(state.ajvSchemas?.[DEFS]);
    if (components === undefined || (shared.json !== undefined && shared.json !== components)) return line;
    shared.json = components;
    state.ajvSchemas[DEFS] = SHARED_MARK;
    return `const validatorState = ${JSON.stringify(state).replace(JSON.stringify(SHARED_MARK), SHARED_CONST)}`;
  });
  for (const [required, local] of Object.entries(STANDALONE_REQUIRES)) body = body.split(required).join(local);
  if (/\brequire\(/.test(body)) throw new Error(`${name}: the serializer requires a module the generator does not import`);
  body = body.replace(/module\.exports\s*=/, 'return');
  return `function ${name}() {\n${body.trim()}\n}`;
}

/**
 * Writes the serializers of `replies` (response schemas by validator name, as the document
 * writes them). Each factory is a module of its own, `reply.serializers/<factory>.gen.js`
 * (`default` builds that reply's serializer), and `reply.serializers.gen.js` names each reply's
 * factory and how to import its module: the runtime imports an operation's serializers with its
 * first request (api.ts), so a start parses the few its first requests write, not all of them
 * (the agent server's were ~890 KB, ~45 ms of every start's main thread and ~1,200 fresh pages).
 */
export function writeSerializers(outDir: string, header: string, doc: Json, replies: Record<string, Json>): void {
  const external = { [DEFS]: forSerializer({ $id: DEFS, definitions: doc.components?.schemas ?? {} }) };
  const factories = new Map<string, string>();
  const shared: { json?: string } = {};
  const bySchema = new Map<string, string>();
  const table: string[] = [];
  for (const [name, schema] of Object.entries(replies)) {
    const key = JSON.stringify(schema);
    let factory = bySchema.get(key);
    if (!factory) {
      factory = `serializer${bySchema.size}`;
      bySchema.set(key, factory);
      let code: string;
      try {
        code = fastJson(forSerializer(schema), { schema: external, mode: 'standalone', ajv: { strict: false } } as never) as unknown as string;
      } catch (err) {
        throw new Error(`${name}: fast-json-stringify cannot compile this response schema: ${(err as Error).message}`);
      }
      factories.set(factory, factoryOf(code, factory, shared));
    }
    table.push(`  ${name}: '${factory}',`);
  }
  const folder = path.join(outDir, 'reply.serializers');
  if (shared.json !== undefined) {
    // The validator (Ajv and its formats, ~35 ms to load) and the components are needed only by
    // the few serializers of a reply with alternatives: the first of them to be built requires it.
    const sharedJs = [
      `${header}/* eslint-disable */`,
      `import { createRequire } from 'node:module';`,
      ``,
      `const require = createRequire(import.meta.url);`,
      `let FjsValidator;`,
      `/** fast-json-stringify's validator, required the first time a serializer that needs one is built. */`,
      `export const fjsValidator = () => (FjsValidator ??= require('fast-json-stringify/lib/validator.js'));`,
      ``,
      // a function, not a constant: a literal this size cost ~10 ms to build, and only a serializer being built reads it
      `/** The document's component schemas, as the serializers' validators read them: built once, when first asked for. */`,
      `let COMPONENTS;`,
      `export const components = () => (COMPONENTS ??= ${jsLiteral(JSON.parse(shared.json), '')});`,
      ``,
    ].join('\n');
    writeFile(folder, 'shared.gen.js', sharedJs);
  }
  for (const [factory, code] of factories) {
    const needs = [/\bfjsValidator\(\)/.test(code) && 'fjsValidator', /\bcomponents\(\)/.test(code) && 'components'].filter(Boolean);
    const imports = [
      `import FjsSerializer from 'fast-json-stringify/lib/serializer.js';`,
      ...(needs.length ? [`import { ${needs.join(', ')} } from './shared.gen.js';`] : []),
    ].join('\n');
    writeFile(folder, `${factory}.gen.js`, `${header}/* eslint-disable */\n${imports}\n\nexport default ${code}\n`);
  }
  const modules = [...factories.keys()].map((factory) => `  ${factory}: () => import('./reply.serializers/${factory}.gen.js'),`);
  const js = `${header}/* eslint-disable */\n/** Each factory's module, imported when an operation that writes one of its replies is first served. */\nexport const modules = {\n${modules.join('\n')}\n};\n\n/** Each JSON reply's factory, by the name of its response validator. */\nexport const serializers = {\n${table.join('\n')}\n};\n`;
  writeFile(outDir, 'reply.serializers.gen.js', js);
  const dts = `${header}import type { SerializerModules } from '../../src/runtime/contract.ts';\n/** Each factory's module, imported when an operation that writes one of its replies is first served. */\nexport declare const modules: SerializerModules['modules'];\n/** Each JSON reply's factory, by the name of its response validator. */\nexport declare const serializers: SerializerModules['serializers'];\n`;
  writeFile(outDir, 'reply.serializers.gen.d.ts', dts);
}
