// In a worker thread (the compiler is synchronous and takes seconds): the JSON schemas of a
// graph's state, update, and config, read from the TypeScript types of its module with the
// TypeScript compiler — the way the upstream JS server gives Annotation graphs typed schemas.
// workerData: { typescript } (the compiler module's URL); each message { id, file, exportName }
// is answered with the schemas (null when the module has no such graph) and every file the
// compiler read, so that a kept answer can be checked against them (staticSchemaCache.ts).
// The worker lives while jobs come (staticSchemas.ts): files it parsed are parsed again only
// when they change, so a second graph of the same project costs a fraction of the first (most
// of a reading is parsing LangGraph's and LangChain's declaration files).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type * as TS from 'typescript';
import {
  recordRef,
  assembleSchemas,
  MAX_DEPTH,
  MESSAGE_LIST,
  messageRef,
  messagesUpdate,
  type TypedGraphSchemas,
  type Schema,
  type SchemaFields,
} from './schemaShapes.ts';
import { syntacticSchemas } from './staticSchemaSyntax.ts';

interface Job {
  id: number;
  file: string;
  exportName: string;
  /** Every graph module of the project known so far: one Program (and checker) answers them all. */
  roots: string[];
  /** Read with the checker even when the source text alone would tell (tests of the checker). */
  checker?: boolean;
}

const { typescript } = workerData as { typescript: string };
const ts = await loadCompiler(typescript);

/**
 * The compiler, required as the CommonJS module it is: imported, Node's ESM loader would first
 * scan its 9 MB for named exports (1.2-1.4 s of CPU to load it on this 2-core machine, against
 * 0.6 s required — most of a cold schema request). A compiler that is not CommonJS is imported.
 */
async function loadCompiler(url: string): Promise<typeof TS> {
  try {
    return createRequire(import.meta.url)(fileURLToPath(url)) as typeof TS;
  } catch {
    const loaded = (await import(url)) as typeof TS & { default?: typeof TS };
    return loaded.default ?? loaded;
  }
}
/**
 * Imports resolve as tsx resolves them when the graph runs (shared/typescriptLoader.ts), in
 * any package's module type: `./u1.ts`, `./u1.js` for `u1.ts`, and an extensionless `./u1` (in
 * an ES module, too, which NodeNext refuses, leaving the state's type unknown).
 */
const options: TS.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  allowImportingTsExtensions: true,
  allowJs: true,
  types: [],
  // the ES library only: the DOM's declarations are half of what a reading parsed (1.9 of
  // 3.7 MB) and no graph's state is typed with them
  lib: ['lib.es2022.d.ts'],
};
const host = ts.createCompilerHost(options);
const projectOptions = new Map<string, TS.CompilerOptions>();

/**
 * The options for a graph module: these, with the path aliases (`paths`, `baseUrl`) of the
 * tsconfig.json nearest it, which tsx applies when the graph runs and upstream's reader reads.
 */
function optionsFor(file: string): TS.CompilerOptions {
  const tsconfig = ts.findConfigFile(path.dirname(file), ts.sys.fileExists);
  if (!tsconfig) return options;
  const key = `${tsconfig}:${fs.statSync(tsconfig, { throwIfNoEntry: false })?.mtimeMs}`;
  let found = projectOptions.get(key);
  if (!found) {
    const read = ts.readConfigFile(tsconfig, ts.sys.readFile);
    const { paths, baseUrl, pathsBasePath } = read.error ? {} : ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(tsconfig)).options;
    found = { ...options, ...(paths && { paths }), ...(baseUrl && { baseUrl }), ...(pathsBasePath !== undefined && { pathsBasePath }) };
    projectOptions.set(key, found);
  }
  return found;
}
const parse = host.getSourceFile.bind(host);
/** Source files parsed (and bound, once a checker used them) by earlier jobs, while unchanged. */
const parsed = new Map<string, { mtimeMs: number; size: number; source: TS.SourceFile }>();
host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
  const stat = fs.statSync(fileName, { throwIfNoEntry: false });
  const kept = parsed.get(fileName);
  if (stat && kept && kept.mtimeMs === stat.mtimeMs && kept.size === stat.size) return kept.source;
  const source = parse(fileName, languageVersion, onError, shouldCreate);
  if (source && stat) parsed.set(fileName, { mtimeMs: stat.mtimeMs, size: stat.size, source });
  return source;
};

/** The Program of the last job: the next job reuses it (its checker too) while none of its files changed. */
let current: TS.Program | undefined;

function programFor(job: Job): TS.Program {
  const unchanged = (source: TS.SourceFile): boolean => {
    const stat = fs.statSync(source.fileName, { throwIfNoEntry: false });
    const kept = parsed.get(source.fileName);
    return !!stat && !!kept && kept.source === source && kept.mtimeMs === stat.mtimeMs && kept.size === stat.size;
  };
  if (current?.getSourceFile(job.file) && current.getSourceFiles().every(unchanged)) return current;
  const roots = [...new Set([job.file, ...job.roots])];
  current = ts.createProgram(roots, optionsFor(job.file), host, current);
  return current;
}

parentPort!.on('message', (job: Job) => {
  try {
    // most graphs' schemas can be read from their source text in milliseconds: the checker
    // (seconds: it reads every declaration LangGraph and LangChain reach) only when it cannot
    const read = job.checker ? undefined : syntacticSchemas(ts, job.file, job.exportName);
    if (read) {
      parentPort!.postMessage({ id: job.id, schemas: read.schemas, inputs: read.inputs, reader: 'syntax' });
      return;
    }
    const program = programFor(job);
    parentPort!.postMessage({
      id: job.id,
      schemas: extract(program, job),
      inputs: program.getSourceFiles().map((source) => source.fileName),
      reader: 'checker',
    });
  } catch (err) {
    parentPort!.postMessage({ id: job.id, error: String(err) });
  }
});

function extract(program: TS.Program, { file, exportName }: Job): (TypedGraphSchemas & { subgraphs: Record<string, TypedGraphSchemas> }) | null {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const exported = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === exportName);
  if (!source || !exported) return null;
  let graphType = checker.getTypeOfSymbolAtLocation(exported, source);
  // a factory: the graph it returns (awaited)
  const call = graphType.getCallSignatures()[0];
  if (call) graphType = checker.getAwaitedType(call.getReturnType()) ?? call.getReturnType();
  const schemas = graphTypeSchemas(checker, graphType, source);
  if (!schemas) return null;
  const subgraphs: Record<string, TypedGraphSchemas> = {};
  if (!call) addSubgraphs(checker, initializerOf(checker, exported), '', subgraphs, source, new Set());
  return { ...schemas, subgraphs };
}

/**
 * The schemas of a CompiledStateGraph<State, Update, …> type. Its input and output are what
 * upstream reads of the builder's input and output definitions — an update of the input's
 * channels, the output's values — which LangGraph's graph type carries as `~InputType` and
 * `~OutputType`: the state's own when the graph declares none, only the declared channels when
 * it is built as `new StateGraph({ stateSchema, input, output })`.
 */
function graphTypeSchemas(checker: TS.TypeChecker, graphType: TS.Type, at: TS.Node): TypedGraphSchemas | null {
  const [state, update] = checker.getTypeArguments(graphType as TS.TypeReference);
  if (!state || !update) return null;
  const declaredType = (name: string) => {
    const property = checker.getPropertyOfType(graphType, name);
    return property && checker.getTypeOfSymbolAtLocation(property, at);
  };
  /** A type's fields; a field `isMessages` says is a list of messages is written as a messages update (schemaShapes.ts). */
  const read = (type: TS.Type, isMessages: (name: string, schema: Schema) => boolean = () => false): SchemaFields => {
    const out: SchemaFields = { fields: {}, definitions: {} };
    for (const property of checker.getPropertiesOfType(type)) {
      // a field's definitions are kept only with the field: a messages field's own are not the update's
      const definitions: Record<string, Schema> = {};
      const schema = described(checker, property, schemaOf(checker, checker.getTypeOfSymbolAtLocation(property, at), 1, definitions));
      if (isMessages(property.name, schema)) out.fields[property.name] = messagesUpdate(out.definitions);
      else {
        out.fields[property.name] = schema;
        Object.assign(out.definitions, definitions);
      }
    }
    return out;
  };
  const stateRead = read(state);
  // a list of messages takes messages in any of LangChain's forms, written once
  const input = read(
    declaredType('~InputType') ?? update,
    (name, schema) => Array.isArray(schema.anyOf) && JSON.stringify(stateRead.fields[name]) === JSON.stringify(MESSAGE_LIST),
  );
  const configDefinitions: Record<string, Schema> = {};
  const config = configFields(checker, graphType, at, (type, depth) => schemaOf(checker, type, depth, configDefinitions));
  return assembleSchemas(stateRead, input, read(declaredType('~OutputType') ?? state), config, configDefinitions);
}

/**
 * The config fields (also the context's) of a CompiledStateGraph<S, U, N, I, O, C>: as
 * upstream, what an update of its config definition C may hold — each field's channel's
 * `UpdateType`. C is an Annotation.Root (its `spec`) or a definition; undefined when the graph
 * declares none (the default definition has no fields of its own).
 */
function configFields(
  checker: TS.TypeChecker,
  graphType: TS.Type,
  at: TS.Node,
  toSchema: (t: TS.Type, depth: number) => Schema,
): Record<string, Schema> | undefined {
  const declared = checker.getTypeArguments(graphType as TS.TypeReference)[5];
  if (!declared) return undefined;
  const spec = checker.getPropertyOfType(declared, 'spec');
  const definition = spec ? checker.getTypeOfSymbolAtLocation(spec, at) : declared;
  const fields = checker.getPropertiesOfType(definition);
  if (fields.length === 0) return undefined;
  const properties: Record<string, Schema> = {};
  for (const field of fields) {
    let channel = checker.getTypeOfSymbolAtLocation(field, at);
    const factory = channel.getCallSignatures()[0];
    if (factory) channel = factory.getReturnType();
    const update = checker.getPropertyOfType(channel, 'UpdateType');
    properties[field.name] = described(checker, field, update ? toSchema(checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(update, at)), 1) : {});
  }
  return properties;
}

/**
 * A subgraph has no export of its own: as upstream, its types are read where its parent adds
 * it as a node — `.addNode("name", subgraph)` in the builder chain the graph is made with
 * (followed into the variable, imported or not, that holds a subgraph, for nested ones).
 * Keyed by namespace (`child`, `child|grandchild`), as getSubgraphs names them. A graph
 * built in statements rather than one chain has its subgraphs' types unread.
 */
function addSubgraphs(
  checker: TS.TypeChecker,
  made: TS.Expression | undefined,
  prefix: string,
  out: Record<string, TypedGraphSchemas>,
  at: TS.Node,
  seen: Set<TS.Node>,
): void {
  if (!made || seen.has(made)) return;
  seen.add(made);
  for (let link: TS.Expression = made; ts.isCallExpression(link) && ts.isPropertyAccessExpression(link.expression); link = link.expression.expression) {
    const [name, node] = link.arguments;
    if (link.expression.name.text !== 'addNode' || !name || !node || !ts.isStringLiteralLike(name)) continue;
    const type = checker.getTypeAtLocation(node);
    // a node that is a function has no schemas of its own
    const schemas = type.getSymbol()?.getName().startsWith('Compiled') ? graphTypeSchemas(checker, type, at) : null;
    if (!schemas) continue;
    out[`${prefix}${name.text}`] = schemas;
    const symbol = ts.isIdentifier(node) ? checker.getSymbolAtLocation(node) : undefined;
    if (symbol) addSubgraphs(checker, initializerOf(checker, symbol), `${prefix}${name.text}|`, out, at, seen);
  }
}

/** What a variable (or the import of one) is initialised with. */
function initializerOf(checker: TS.TypeChecker, symbol: TS.Symbol): TS.Expression | undefined {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const declaration = target.valueDeclaration;
  return declaration && ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
}

/** A field's schema with its JSDoc comment as `description`, as upstream's generator writes it. */
function described(checker: TS.TypeChecker, symbol: TS.Symbol, schema: Schema): Schema {
  const text = symbol
    .getDocumentationComment(checker)
    .map((part) => part.text.replace(/\r\n/g, '\n'))
    .join('')
    .trim();
  return text ? { ...schema, description: text } : schema;
}

/** A TypeScript type as JSON Schema: primitives, literal unions as enums, arrays, objects; LangChain messages by reference. */
function schemaOf(checker: TS.TypeChecker, type: TS.Type, depth: number, definitions: Record<string, Schema>): Schema {
  const flags = type.flags;
  const F = ts.TypeFlags;
  if (flags & (F.Any | F.Unknown)) return {};
  if (flags & F.StringLiteral) return { type: 'string', const: (type as TS.StringLiteralType).value };
  if (flags & F.NumberLiteral) return { type: 'number', const: (type as TS.NumberLiteralType).value };
  if (flags & F.BooleanLiteral) return { type: 'boolean', const: checker.typeToString(type) === 'true' };
  if (flags & F.String) return { type: 'string' };
  if (flags & F.Number) return { type: 'number' };
  if (flags & F.Boolean) return { type: 'boolean' };
  if (flags & F.Null) return { type: 'null' };
  if (type.isUnion()) {
    // an update may also be LangGraph's Overwrite wrapper of the value: upstream leaves it out
    const members = type.types.filter((t) => !(t.flags & (F.Undefined | F.Void)) && !checker.getPropertyOfType(t, '__overwrite__'));
    // literal unions as enums, sorted: TypeScript's order of a union's members is its own
    if (members.length && members.every((t) => t.flags & F.StringLiteral))
      return { type: 'string', enum: members.map((t) => (t as TS.StringLiteralType).value).sort() };
    if (members.length && members.every((t) => t.flags & F.NumberLiteral))
      return { type: 'number', enum: members.map((t) => (t as TS.NumberLiteralType).value).sort((a, b) => a - b) };
    if (members.length && members.every((t) => t.flags & F.BooleanLiteral)) return { type: 'boolean' };
    if (members.length === 1) return schemaOf(checker, members[0], depth, definitions);
    return { anyOf: members.map((t) => schemaOf(checker, t, depth, definitions)) };
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    const [item] = checker.getTypeArguments(type as TS.TypeReference);
    return { type: 'array', items: item ? schemaOf(checker, item, depth + 1, definitions) : {} };
  }
  const name = type.getSymbol()?.getName();
  if (name && /Message(Chunk)?$/.test(name) && checker.getPropertyOfType(type, 'content')) return messageRef(definitions);
  const index = flags & F.Object ? checker.getIndexInfoOfType(type, ts.IndexKind.String) : undefined;
  const valueText = index && plainTypeText(index.type);
  if (valueText && checker.getPropertiesOfType(type).length === 0) return recordRef(definitions, valueText);
  if (flags & F.Object && depth < MAX_DEPTH && type.getCallSignatures().length === 0) {
    const properties: Record<string, Schema> = {};
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (declaration)
        properties[property.name] = described(
          checker,
          property,
          schemaOf(checker, checker.getTypeOfSymbolAtLocation(property, declaration), depth + 1, definitions),
        );
    }
    return { type: 'object', properties };
  }
  return {};
}

/** How upstream's generator names a record's value type, for the plain ones (else undefined: written inline). */
function plainTypeText(type: TS.Type): 'any' | '{}' | 'string' | 'number' | 'boolean' | undefined {
  const F = ts.TypeFlags;
  if (type.flags & F.Any) return 'any';
  if (type.flags & F.Unknown) return '{}';
  if (type.flags & F.String) return 'string';
  if (type.flags & F.Number) return 'number';
  if (type.flags & F.Boolean) return 'boolean';
  return undefined;
}
