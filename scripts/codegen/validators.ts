// *.validators.gen.js: standalone ajv validators (one export per schema), emitted with line
// breaks so a one-keyword spec change is a readable diff, and their .d.ts.
import path from 'node:path';
import Ajv2020Module from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import addFormatsModule from 'ajv-formats';
import { CONTRACT_IMPORT, jsLiteral, writeFile } from './output.ts';
import type { Json } from './schemas.ts';

// these packages are CommonJS with a `default` export
const cjs = (m: any) => m.default ?? m;
const Ajv2020 = cjs(Ajv2020Module);
const standaloneCode = cjs(standaloneModule);
export const addFormats = cjs(addFormatsModule);

/**
 * `split`: each validator is a module of its own, `<name>.validators/<key>.gen.js` (the
 * definitions it reads copied into it), `<name>.validators.gen.js` re-exports them all (the
 * tests, the conformance suite), and `<name>.validators.lazy.gen.js` says how to import each
 * one: the runtime imports an operation's with its first request (api.ts), so a start parses
 * the few its first requests read, not all of them (the agent server's params were ~350 KB).
 * Validators of the same schema are one module (106 params of the agent server, 37 schemas).
 */
export function writeValidators(
  outDir: string,
  header: string,
  name: string,
  schemaId: string,
  defs: Json,
  schemas: Record<string, Json>,
  opts: Json,
  split = false,
): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true, code: { source: true, esm: true, lines: true }, ...opts });
  addFormats(ajv);
  ajv.addSchema({ $id: schemaId, $defs: defs });
  const exportsMap: Record<string, string> = {};
  for (const [key, schema] of Object.entries(schemas)) {
    const id = `${schemaId.replace('.json', '')}/${name}/${key}`;
    ajv.addSchema({ ...schema, $id: id });
    exportsMap[key] = id;
  }
  const keys = Object.keys(exportsMap);
  if (split && keys.length) {
    const folder = `${name}.validators`;
    // operations with the same schema (joinRunStream_query and joinStatelessRunStream_query…)
    // share the first one's module: the same text validates the same way
    const first = new Map<string, string>();
    const moduleOf = Object.fromEntries(keys.map((key) => [key, setOnce(first, JSON.stringify(schemas[key]), key)]));
    for (const key of new Set(Object.values(moduleOf))) {
      const one = readableStandalone(standaloneCode(ajv, { [key]: exportsMap[key] }));
      writeFile(path.join(outDir, folder), `${key}.gen.js`, header + '/* eslint-disable */\n' + one);
    }
    const exported = (key: string) => (moduleOf[key] === key ? key : `${moduleOf[key]} as ${key}`);
    const barrel = keys.map((key) => `export { ${exported(key)} } from './${folder}/${moduleOf[key]}.gen.js';`).join('\n');
    writeFile(outDir, `${name}.validators.gen.js`, `${header}/* eslint-disable */\n${barrel}\n`);
    const lazy = keys.map((key) => `  ${key}: () => import('./${folder}/${moduleOf[key]}.gen.js').then((m) => m.${moduleOf[key]}),`).join('\n');
    writeFile(
      outDir,
      `${name}.validators.lazy.gen.js`,
      `${header}/* eslint-disable */\n/** Each validator's module, imported when an operation that reads it is first served. */\nexport const modules = {\n${lazy}\n};\n`,
    );
    writeFile(
      outDir,
      `${name}.validators.lazy.gen.d.ts`,
      `${header}import type { ValidatorModules } from '${CONTRACT_IMPORT}';\n/** Each validator's module, imported when an operation that reads it is first served. */\nexport declare const modules: ValidatorModules;\n`,
    );
  } else {
    const code = keys.length ? readableStandalone(standaloneCode(ajv, exportsMap)) : 'export {};\n';
    writeFile(outDir, `${name}.validators.gen.js`, header + '/* eslint-disable */\n' + code);
  }
  const dts = Object.keys(exportsMap)
    .map((k) => `export declare const ${k}: Validator;`)
    .join('\n');
  writeFile(outDir, `${name}.validators.gen.d.ts`, header + `import type { Validator } from '${CONTRACT_IMPORT}';\n${dts}\n`);
}

/** The value `map` holds for `key`, set to `value` when it holds none. */
function setOnce(map: Map<string, string>, key: string, value: string): string {
  if (!map.has(key)) map.set(key, value);
  return map.get(key)!;
}

/**
 * ajv's standalone code as a module: its requires become imports, and the schema constants
 * it embeds on one line each are written one member per line.
 */
export function readableStandalone(code: string): string {
  const spread = code.replace(/^const (schema\d+) = (.*);$/gm, (line, name: string, json: string) => {
    try {
      return `const ${name} = ${jsLiteral(JSON.parse(json), '')};`;
    } catch {
      return line; // not plain JSON: left as ajv wrote it
    }
  });
  return esmRequires(spread);
}

/** ajv's standalone output still `require`s its runtime helpers; turn those into imports. */
export function esmRequires(code: string): string {
  const imports: string[] = [];
  const seen = new Map<string, string>();
  const out = code.replace(/require\("([^"]+)"\)(\.[A-Za-z_$][\w$]*)*/g, (match, mod: string) => {
    const key = match;
    if (!seen.has(key)) {
      const local = `__req${seen.size}`;
      seen.set(key, local);
      const rest = match.slice(`require("${mod}")`.length);
      const spec = mod.endsWith('.js') ? mod : `${mod}.js`;
      // a default import of a CommonJS module is its module.exports, which is what require returned
      imports.push(`import ${local}_mod from ${JSON.stringify(spec)};\nconst ${local} = ${local}_mod${rest};`);
    }
    return seen.get(key)!;
  });
  return imports.join('\n') + (imports.length ? '\n' : '') + out;
}
