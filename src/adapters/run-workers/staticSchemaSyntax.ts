// A graph's schemas read from its source text alone — the module and the project's own files
// it imports, parsed (ts.createSourceFile), never type-checked — for the graphs most projects
// write: `new StateGraph(State[, Config])…compile()` (exported, or returned by an exported
// factory) over `Annotation.Root({...})` specs of `Annotation<T>` / `Annotation<T, U>(…)`
// fields, LangGraph's MessagesAnnotation (and its `.spec` spread), and field types spelled
// with keywords, literals and their unions, arrays, object types, and the project's
// interfaces and type aliases. It answers exactly what the checker would
// (staticSchemaWorker.ts) in milliseconds instead of seconds; anything it cannot tell for
// certain (an inferred type, a generic, a library type other than a message, a graph made
// another way) makes it answer undefined, and the checker reads the module.
import fs from 'node:fs';
import path from 'node:path';
import type * as TS from 'typescript';
import {
  assembleSchemas,
  MAX_DEPTH,
  MESSAGE_LIST,
  messageRef,
  messagesUpdate,
  type TypedGraphSchemas,
  type Schema,
  type SchemaFields,
} from './schemaShapes.ts';

type Ts = typeof TS;

/** The source text cannot tell: the checker must read the module. */
class Undecided extends Error {}
const undecided = (why: string): never => {
  throw new Undecided(why);
};

/** A field of an annotation spec: its value and update types where they are written, or LangGraph's messages channel. */
type Field = { name: string; messages: true } | { name: string; messages?: false; value: TS.TypeNode; update: TS.TypeNode; module: Module };

/** What a StateGraph is made over: its state's fields, its input's and output's when declared apart, its config's. */
interface Declared {
  state: Field[];
  input?: Field[];
  output?: Field[];
  config?: Field[];
}

interface Module {
  file: string;
  source: TS.SourceFile;
  /** Top-level declarations by name (a name declared twice is left out: it cannot be told). */
  declarations: Map<string, TS.Node>;
  imports: Map<string, { from: string; name: string }>;
}

/**
 * A field with a JSDoc comment: its schema has the comment as `description` (as upstream's
 * generator writes it), which the checker reads (staticSchemaWorker.ts). The parser keeps a
 * node's JSDoc on `jsDoc`, set whether or not the comment has tags.
 */
const documented = (node: TS.Node) => ((node as { jsDoc?: unknown[] }).jsDoc?.length ?? 0) > 0;

const LANGGRAPH = /^@langchain\/langgraph(\/web)?$/;
const MESSAGES_FROM = /^@langchain\/(core\/messages|langgraph(\/web)?)$/;

export function syntacticSchemas(
  ts: Ts,
  file: string,
  exportName: string,
): { schemas: TypedGraphSchemas & { subgraphs: Record<string, TypedGraphSchemas> }; inputs: string[] } | undefined {
  const reader = new SyntaxReader(ts);
  try {
    const module = reader.module(file);
    const exported = reader.exported(module, exportName);
    let made: { expression: TS.Expression; module: Module; locals?: Map<string, TS.Node> };
    let factory = false;
    // a declared type is the checker's answer, whatever the initializer says
    if (ts.isVariableDeclaration(exported) && exported.type) return undecided('typed export');
    if (ts.isVariableDeclaration(exported) && exported.initializer && !isFunction(ts, exported.initializer)) {
      made = { expression: exported.initializer, module };
    } else {
      made = reader.returned(exported, module);
      factory = true;
    }
    const graph = reader.graph(made.expression, made.module, made.locals);
    const subgraphs: Record<string, TypedGraphSchemas> = {};
    // as the checker: a factory's subgraphs are not read; an export's from its builder chain
    if (!factory) reader.subgraphs(made.expression, made.module, '', subgraphs, new Set());
    return { schemas: { ...graph, subgraphs }, inputs: [...reader.read, ...reader.libraries()] };
  } catch {
    // undecided, or a compiler without an API this reader uses: the checker reads it
    return undefined;
  }
}

const isFunction = (ts: Ts, node: TS.Node): boolean => ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isFunctionDeclaration(node);

class SyntaxReader {
  /** Every file read, for the kept answer's stamps. */
  readonly read = new Set<string>();
  private readonly modules = new Map<string, Module>();

  constructor(private readonly ts: Ts) {}

  module(file: string): Module {
    const known = this.modules.get(file);
    if (known) return known;
    const ts = this.ts;
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    this.read.add(file);
    const declarations = new Map<string, TS.Node>();
    const twice = new Set<string>();
    const declare = (name: string, node: TS.Node) => (declarations.has(name) ? twice.add(name) : declarations.set(name, node));
    const imports = new Map<string, { from: string; name: string }>();
    for (const statement of source.statements) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) if (ts.isIdentifier(declaration.name)) declare(declaration.name.text, declaration);
      } else if ((ts.isFunctionDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) && statement.name) {
        declare(statement.name.text, statement);
      } else if (ts.isClassDeclaration(statement) || ts.isEnumDeclaration(statement) || ts.isModuleDeclaration(statement)) {
        if (statement.name && ts.isIdentifier(statement.name)) declare(statement.name.text, statement);
      } else if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.importClause) {
        const from = statement.moduleSpecifier.text;
        const { name, namedBindings } = statement.importClause;
        if (name) imports.set(name.text, { from, name: 'default' });
        if (namedBindings && ts.isNamedImports(namedBindings))
          for (const element of namedBindings.elements) imports.set(element.name.text, { from, name: (element.propertyName ?? element.name).text });
        if (namedBindings && ts.isNamespaceImport(namedBindings)) imports.set(namedBindings.name.text, { from, name: '*' });
      }
    }
    for (const name of twice) declarations.delete(name);
    const module = { file, source, declarations, imports };
    this.modules.set(file, module);
    return module;
  }

  /** The declaration a module exports under `name` (declared `export`, or listed in `export { … }`). */
  exported(module: Module, name: string): TS.Node {
    const ts = this.ts;
    for (const statement of module.source.statements) {
      if (ts.isExportDeclaration(statement) && !statement.moduleSpecifier && statement.exportClause && ts.isNamedExports(statement.exportClause))
        for (const element of statement.exportClause.elements)
          if (element.name.text === name) return this.declared(module, (element.propertyName ?? element.name).text);
    }
    const declaration = module.declarations.get(name);
    const statement = declaration && (ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration);
    const exported = statement && ts.canHaveModifiers(statement) && ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    return exported ? declaration : undecided(`no export ${name}`);
  }

  /** What a name means in a module: its own declaration, or the declaration a project file it imports exports. */
  declared(module: Module, name: string, locals?: Map<string, TS.Node>): TS.Node {
    const local = locals?.get(name) ?? module.declarations.get(name);
    if (local) {
      const ts = this.ts;
      // only a `const` holds what its initializer says
      if (ts.isVariableDeclaration(local) && !(local.parent.flags & ts.NodeFlags.Const)) undecided(`${name} is not const`);
      return local;
    }
    const imported = module.imports.get(name);
    if (!imported || !imported.from.startsWith('.') || imported.name === '*' || imported.name === 'default') return undecided(`${name} is not the project's`);
    const target = this.module(this.resolve(module.file, imported.from));
    return this.exported(target, imported.name);
  }

  /** The module a declaration was found in (declarations are found by name in modules this reader parsed). */
  moduleOf(node: TS.Node): Module {
    const file = node.getSourceFile().fileName;
    return this.modules.get(file) ?? undecided(`unparsed ${file}`);
  }

  /** A relative import's file, as TypeScript resolves it (a .js specifier names its .ts source). */
  resolve(from: string, specifier: string): string {
    const base = path.resolve(path.dirname(from), specifier);
    const stem = base.replace(/\.(m|c)?jsx?$/, '');
    const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${stem}.cts`, path.join(base, 'index.ts')];
    for (const candidate of candidates) if (/\.(m|c)?tsx?$/.test(candidate) && fs.statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    return undecided(`cannot resolve ${specifier}`);
  }

  /** The library an import names, to whose version the answer is tied: LangGraph's package.json. */
  libraries(): string[] {
    for (const module of this.modules.values())
      for (let at = path.dirname(module.file); ; at = path.dirname(at)) {
        const manifest = path.join(at, 'node_modules', '@langchain', 'langgraph', 'package.json');
        if (fs.existsSync(manifest)) return [manifest];
        if (path.dirname(at) === at) break;
      }
    return [];
  }

  /** What an exported factory returns: its one return statement's expression (or an arrow's body). */
  returned(declaration: TS.Node, module: Module): { expression: TS.Expression; module: Module; locals: Map<string, TS.Node> } {
    const ts = this.ts;
    const fn = ts.isVariableDeclaration(declaration) ? declaration.initializer : declaration;
    if (!fn || !(ts.isArrowFunction(fn) || ts.isFunctionExpression(fn) || ts.isFunctionDeclaration(fn)) || fn.type || !fn.body)
      return undecided('not a factory');
    const locals = new Map<string, TS.Node>();
    if (!ts.isBlock(fn.body)) return { expression: fn.body, module, locals };
    const returns: TS.Expression[] = [];
    const visit = (node: TS.Node): void => {
      if (ts.isReturnStatement(node)) {
        if (node.expression) returns.push(node.expression);
      } else if (!isFunction(ts, node) && !ts.isClassLike(node)) ts.forEachChild(node, visit);
    };
    ts.forEachChild(fn.body, visit);
    for (const statement of fn.body.statements)
      if (ts.isVariableStatement(statement))
        for (const variable of statement.declarationList.declarations) if (ts.isIdentifier(variable.name)) locals.set(variable.name.text, variable);
    return returns.length === 1 ? { expression: returns[0], module, locals } : undecided('not one return');
  }

  /** A builder chain's links, outermost first, down to its root (`new StateGraph(…)` or a variable). */
  private chain(expression: TS.Expression): { links: TS.CallExpression[]; root: TS.Expression } {
    const ts = this.ts;
    const links: TS.CallExpression[] = [];
    let link: TS.Expression = expression;
    while (ts.isCallExpression(link) && ts.isPropertyAccessExpression(link.expression)) {
      links.push(link);
      link = link.expression.expression;
    }
    return { links, root: link };
  }

  /** The schemas of a compiled graph: `<chain>.compile(…)` whose root is `new StateGraph(State[, Config])`. */
  graph(expression: TS.Expression, module: Module, locals?: Map<string, TS.Node>, hops = 0): TypedGraphSchemas {
    const ts = this.ts;
    while (ts.isAwaitExpression(expression) || ts.isParenthesizedExpression(expression)) expression = expression.expression;
    if (ts.isIdentifier(expression) && hops < 8) {
      // `const graph = builder.compile(); return graph;`
      const declaration = this.declared(module, expression.text, locals);
      if (!ts.isVariableDeclaration(declaration) || !declaration.initializer || declaration.type) return undecided('graph');
      const home = this.moduleOf(declaration);
      return this.graph(declaration.initializer, home, home === module ? locals : undefined, hops + 1);
    }
    const { links, root } = this.chain(expression);
    const compile = links[0];
    if (!compile || (compile.expression as TS.PropertyAccessExpression).name.text !== 'compile') return undecided('not compiled');
    const builder = this.builder(root, module, locals, hops);
    return this.schemasOf(builder);
  }

  /**
   * The `new StateGraph(State[, Config])` or `new StateGraph({ stateSchema, input, output }[, Config])`
   * a chain starts from (through `const builder = …` variables).
   */
  private builder(root: TS.Expression, module: Module, locals: Map<string, TS.Node> | undefined, hops: number): Declared {
    const ts = this.ts;
    if (ts.isIdentifier(root) && hops < 8) {
      const declaration = this.declared(module, root.text, locals);
      if (!ts.isVariableDeclaration(declaration) || !declaration.initializer || declaration.type) return undecided('builder');
      const { root: inner } = this.chain(declaration.initializer);
      return this.builder(inner, this.moduleOf(declaration), locals && module === this.moduleOf(declaration) ? locals : undefined, hops + 1);
    }
    if (!ts.isNewExpression(root) || !ts.isIdentifier(root.expression) || root.typeArguments) return undecided('not new StateGraph');
    const imported = module.imports.get(root.expression.text);
    if (!imported || imported.name !== 'StateGraph' || !LANGGRAPH.test(imported.from) || module.declarations.has(root.expression.text))
      return undecided('StateGraph');
    const [state, config, ...rest] = root.arguments ?? [];
    if (!state || rest.length) return undecided('arguments');
    const configFields = config ? this.spec(config, module, locals) : undefined;
    if (!ts.isObjectLiteralExpression(state)) return { state: this.spec(state, module, locals), config: configFields };
    // `{ stateSchema, input?, output? }`, or `{ input, output }` whose state is its input (LangGraph's two forms of annotations)
    const named: Record<string, Field[]> = {};
    for (const element of state.properties) {
      if (!ts.isPropertyAssignment(element) || !ts.isIdentifier(element.name) || !['stateSchema', 'input', 'output'].includes(element.name.text))
        return undecided('StateGraph fields');
      named[element.name.text] = this.spec(element.initializer, module, locals);
    }
    const stateFields = named.stateSchema ?? (named.output ? named.input : undefined);
    if (!stateFields) return undecided('StateGraph fields');
    return { state: stateFields, input: named.input, output: named.output, config: configFields };
  }

  /** The fields of an annotation: `Annotation.Root({…})`, LangGraph's MessagesAnnotation, or a variable holding one. */
  spec(expression: TS.Expression, module: Module, locals?: Map<string, TS.Node>, depth = 0): Field[] {
    const ts = this.ts;
    if (depth > 8) return undecided('deep');
    if (ts.isIdentifier(expression)) {
      const imported = module.imports.get(expression.text);
      if (imported && !module.declarations.has(expression.text) && !locals?.has(expression.text) && LANGGRAPH.test(imported.from)) {
        return imported.name === 'MessagesAnnotation' ? [{ name: 'messages', messages: true }] : undecided(imported.name);
      }
      const declaration = this.declared(module, expression.text, locals);
      if (!ts.isVariableDeclaration(declaration) || !declaration.initializer || declaration.type) return undecided('annotation');
      const home = this.moduleOf(declaration);
      return this.spec(declaration.initializer, home, home === module ? locals : undefined, depth + 1);
    }
    if (
      !ts.isCallExpression(expression) ||
      expression.typeArguments ||
      !ts.isPropertyAccessExpression(expression.expression) ||
      expression.expression.name.text !== 'Root' ||
      !this.isAnnotation(expression.expression.expression, module, locals) ||
      expression.arguments.length !== 1 ||
      !ts.isObjectLiteralExpression(expression.arguments[0])
    )
      return undecided('not Annotation.Root');
    return this.literalFields(expression.arguments[0], module, locals, depth);
  }

  private isAnnotation(expression: TS.Expression, module: Module, locals?: Map<string, TS.Node>): boolean {
    if (!this.ts.isIdentifier(expression) || locals?.has(expression.text) || module.declarations.has(expression.text)) return false;
    const imported = module.imports.get(expression.text);
    return !!imported && imported.name === 'Annotation' && LANGGRAPH.test(imported.from);
  }

  /**
   * The fields of `{ a: Annotation<T>, ...Other.spec, … }` in the order the checker lists
   * them: an object literal's spread puts the fields written after it first, then the
   * spread's (TypeScript's getSpreadType), a later field of a name replacing an earlier one.
   */
  private literalFields(literal: TS.ObjectLiteralExpression, module: Module, locals: Map<string, TS.Node> | undefined, depth: number): Field[] {
    const ts = this.ts;
    let spread: Field[] | undefined;
    let written: Field[] = [];
    const combine = (left: Field[] | undefined, right: Field[]): Field[] => {
      if (!left) return right;
      const names = new Set(right.map((field) => field.name));
      return [...right, ...left.filter((field) => !names.has(field.name))];
    };
    for (const element of literal.properties) {
      if (ts.isSpreadAssignment(element)) {
        const spec = element.expression;
        if (!ts.isPropertyAccessExpression(spec) || spec.name.text !== 'spec') return undecided('spread');
        if (written.length) spread = combine(spread, written);
        written = [];
        spread = combine(spread, this.spec(spec.expression, module, locals, depth + 1));
      } else if (ts.isPropertyAssignment(element) && (ts.isIdentifier(element.name) || ts.isStringLiteral(element.name))) {
        if (documented(element)) return undecided('documented field');
        const field = this.field(element.name.text, element.initializer, module, locals);
        written = [...written.filter((f) => f.name !== field.name), field];
      } else return undecided('property');
    }
    return combine(spread, written);
  }

  /** `Annotation<T>` or `Annotation<T, U>(…)`: the value type T and update type U (T unless given). */
  private field(name: string, initializer: TS.Expression, module: Module, locals?: Map<string, TS.Node>): Field {
    const ts = this.ts;
    const typed = ts.isCallExpression(initializer) ? initializer : ts.isExpressionWithTypeArguments(initializer) ? initializer : undefined;
    const callee = typed && (ts.isCallExpression(typed) ? typed.expression : typed.expression);
    const types = typed?.typeArguments;
    if (!callee || !types || types.length < 1 || types.length > 2 || !this.isAnnotation(callee, module, locals)) return undecided(`field ${name}`);
    // Annotation<T, U> is a channel only once called with its reducer
    if (types.length === 2 && !ts.isCallExpression(initializer)) return undecided(`field ${name}`);
    return { name, value: types[0], update: types[1] ?? types[0], module };
  }

  /**
   * The four schemas of a graph: its state's values; an update of its input's channels and its
   * output's values (the state's unless declared apart), as the checker reads LangGraph's
   * `~InputType` and `~OutputType`; its config's updates.
   */
  schemasOf({ state, input = state, output = state, config }: Declared): TypedGraphSchemas {
    const values = (fields: Field[]): SchemaFields => {
      const read: SchemaFields = { fields: {}, definitions: {} };
      for (const field of fields)
        read.fields[field.name] = field.messages
          ? (messageRef(read.definitions), MESSAGE_LIST)
          : this.schemaOf(field.value, field.module, 1, read.definitions, false);
      return read;
    };
    const stateRead = values(state);
    const inputRead: SchemaFields = { fields: {}, definitions: {} };
    for (const field of input) {
      if (field.messages) inputRead.fields[field.name] = messagesUpdate(inputRead.definitions);
      else {
        const definitions: Record<string, Schema> = {};
        const update = this.schemaOf(field.update, field.module, 1, definitions, false);
        // the checker's rule for a list of messages (staticSchemaWorker.ts), whose definitions go with the field
        if (Array.isArray(update.anyOf) && JSON.stringify(stateRead.fields[field.name]) === JSON.stringify(MESSAGE_LIST))
          inputRead.fields[field.name] = messagesUpdate(inputRead.definitions);
        else {
          inputRead.fields[field.name] = update;
          Object.assign(inputRead.definitions, definitions);
        }
      }
    }
    const configDefinitions: Record<string, Schema> = {};
    let configFields: Record<string, Schema> | undefined;
    if (config?.length) {
      configFields = {};
      for (const field of config) {
        if (field.messages) return undecided('messages in config');
        // the checker reads a config field's update type without null and undefined
        configFields[field.name] = this.schemaOf(field.update, field.module, 1, configDefinitions, true);
      }
    }
    return assembleSchemas(stateRead, inputRead, values(output), configFields, configDefinitions);
  }

  /** A written type as the checker's schemaOf would write the type it denotes. */
  schemaOf(node: TS.TypeNode, module: Module, depth: number, definitions: Record<string, Schema>, nonNullable: boolean): Schema {
    const ts = this.ts;
    const K = ts.SyntaxKind;
    const members = this.unionMembers(node, module, 0).filter((member) => !(member.kind === 'undefined' || (nonNullable && member.kind === 'null')));
    if (members.length === 0) return undecided('never');
    if (members.length > 1) {
      if (members.every((m) => m.kind === 'string')) return { type: 'string', enum: [...new Set(members.map((m) => m.value as string))].sort() };
      if (members.every((m) => m.kind === 'number')) return { type: 'number', enum: [...new Set(members.map((m) => m.value as number))].sort((a, b) => a - b) };
      if (members.every((m) => m.kind === 'boolean')) return { type: 'boolean' };
      return undecided('a mixed union: the checker orders its members by type identity');
    }
    const [member] = members;
    if (member.kind === 'string' || member.kind === 'number') return { type: member.kind, const: member.value };
    if (member.kind === 'boolean') return member.value === undefined ? { type: 'boolean' } : { type: 'boolean', const: member.value };
    if (member.kind === 'null') return { type: 'null' };
    if (member.kind === 'keyword')
      return member.value === K.AnyKeyword || member.value === K.UnknownKeyword ? {} : { type: member.value === K.StringKeyword ? 'string' : 'number' };
    if (member.kind === 'type') return this.objectOf(member.node, member.module, depth, definitions);
    return undecided('undefined');
  }

  /** A written type's union members (type aliases followed), each a literal, a keyword or a type to read further. */
  private unionMembers(node: TS.TypeNode, module: Module, hops: number): Member[] {
    const ts = this.ts;
    const K = ts.SyntaxKind;
    if (hops > 16) return undecided('deep alias');
    if (ts.isParenthesizedTypeNode(node)) return this.unionMembers(node.type, module, hops + 1);
    if (ts.isUnionTypeNode(node)) return node.types.flatMap((type) => this.unionMembers(type, module, hops + 1));
    if (node.kind === K.StringKeyword || node.kind === K.NumberKeyword || node.kind === K.AnyKeyword || node.kind === K.UnknownKeyword)
      return [{ kind: 'keyword', value: node.kind }];
    if (node.kind === K.BooleanKeyword)
      return [
        { kind: 'boolean', value: false },
        { kind: 'boolean', value: true },
      ];
    if (node.kind === K.UndefinedKeyword || node.kind === K.VoidKeyword) return [{ kind: 'undefined' }];
    if (ts.isLiteralTypeNode(node)) {
      const literal = node.literal;
      if (literal.kind === K.NullKeyword) return [{ kind: 'null' }];
      if (ts.isStringLiteral(literal) || ts.isNoSubstitutionTemplateLiteral(literal)) return [{ kind: 'string', value: literal.text }];
      if (ts.isNumericLiteral(literal)) return [{ kind: 'number', value: Number(literal.text) }];
      if (literal.kind === K.TrueKeyword || literal.kind === K.FalseKeyword) return [{ kind: 'boolean', value: literal.kind === K.TrueKeyword }];
      return undecided('literal');
    }
    if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) && !node.typeArguments) {
      const alias = this.typeDeclaration(node.typeName.text, module);
      if (alias && ts.isTypeAliasDeclaration(alias) && !alias.typeParameters) return this.unionMembers(alias.type, this.moduleOf(alias), hops + 1);
    }
    return [{ kind: 'type', node, module }];
  }

  /** A type name's declaration in the project (undefined: a library's or a global type). */
  private typeDeclaration(name: string, module: Module): TS.Node | undefined {
    const ts = this.ts;
    const local = module.declarations.get(name);
    if (local) return ts.isInterfaceDeclaration(local) || ts.isTypeAliasDeclaration(local) ? local : undecided(`type ${name}`);
    const imported = module.imports.get(name);
    if (!imported) return undefined;
    if (!imported.from.startsWith('.')) return undefined;
    return this.declared(module, name);
  }

  /** Arrays, tuples, object types and interfaces of the project, LangChain's messages. */
  private objectOf(node: TS.TypeNode, module: Module, depth: number, definitions: Record<string, Schema>): Schema {
    const ts = this.ts;
    if (ts.isArrayTypeNode(node)) return { type: 'array', items: this.schemaOf(node.elementType, module, depth + 1, definitions, false) };
    if (ts.isTypeOperatorNode(node) && node.operator === ts.SyntaxKind.ReadonlyKeyword && ts.isArrayTypeNode(node.type))
      return this.objectOf(node.type, module, depth, definitions);
    if (ts.isTupleTypeNode(node)) {
      const [first] = node.elements;
      if (first && !ts.isTypeNode(first)) return undecided('tuple');
      if (first && (ts.isNamedTupleMember(first) || ts.isOptionalTypeNode(first) || ts.isRestTypeNode(first))) return undecided('tuple member');
      return { type: 'array', items: first ? this.schemaOf(first, module, depth + 1, definitions, false) : {} };
    }
    if (ts.isFunctionTypeNode(node) || ts.isConstructorTypeNode(node)) return {};
    if (ts.isTypeLiteralNode(node)) return this.membersOf(node.members, module, depth, definitions);
    if (ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName)) {
      const name = node.typeName.text;
      const args = node.typeArguments ?? [];
      if ((name === 'Array' || name === 'ReadonlyArray') && args.length === 1 && this.isGlobal(name, module))
        return { type: 'array', items: this.schemaOf(args[0], module, depth + 1, definitions, false) };
      const imported = module.imports.get(name);
      if (imported && !module.declarations.has(name) && MESSAGES_FROM.test(imported.from) && /Message(Chunk)?$/.test(imported.name) && !args.length)
        return messageRef(definitions);
      // the checker writes any type named like a message, and having content, as a message
      if (/Message(Chunk)?$/.test(name)) return undecided(`type ${name}`);
      const declaration = args.length ? undefined : this.typeDeclaration(name, module);
      if (declaration && ts.isInterfaceDeclaration(declaration) && !declaration.typeParameters && !declaration.heritageClauses)
        return this.membersOf(declaration.members, this.moduleOf(declaration), depth, definitions);
    }
    return undecided(`type ${node.getText()}`);
  }

  private isGlobal(name: string, module: Module): boolean {
    return !module.declarations.has(name) && !module.imports.has(name);
  }

  /** An object type's fields (the checker: objects deeper than MAX_DEPTH, and callables, are `{}`). */
  private membersOf(members: TS.NodeArray<TS.TypeElement>, module: Module, depth: number, definitions: Record<string, Schema>): Schema {
    const ts = this.ts;
    if (depth >= MAX_DEPTH || members.some((m) => ts.isCallSignatureDeclaration(m) || ts.isConstructSignatureDeclaration(m))) return {};
    // an object of index signatures alone is a record, which the checker writes by reference
    if (members.length > 0 && members.every((m) => ts.isIndexSignatureDeclaration(m))) return undecided('index signatures');
    const properties: Record<string, Schema> = {};
    for (const member of members) {
      if (ts.isIndexSignatureDeclaration(member)) continue;
      if (documented(member)) return undecided('documented member');
      if (!member.name || !(ts.isIdentifier(member.name) || ts.isStringLiteral(member.name))) return undecided('member name');
      if (properties[member.name.text]) return undecided('overloads');
      if (ts.isMethodSignature(member)) properties[member.name.text] = {};
      else if (ts.isPropertySignature(member))
        properties[member.name.text] = member.type ? this.schemaOf(member.type, module, depth + 1, definitions, false) : {};
      else return undecided('member');
    }
    return { type: 'object', properties };
  }

  /**
   * The compiled graphs its builder chain adds as nodes, keyed by namespace, as the checker's
   * addSubgraphs finds them (a node that is a function is none; a node it cannot tell: undecided).
   */
  subgraphs(made: TS.Expression, module: Module, prefix: string, out: Record<string, TypedGraphSchemas>, seen: Set<TS.Node>): void {
    const ts = this.ts;
    if (seen.has(made)) return;
    seen.add(made);
    for (const link of this.chain(made).links) {
      const [name, node] = link.arguments;
      if ((link.expression as TS.PropertyAccessExpression).name.text !== 'addNode' || !name || !node || !ts.isStringLiteralLike(name)) continue;
      if (isFunction(ts, node) || this.isToolNode(node, module)) continue;
      if (!ts.isIdentifier(node)) return void undecided('node');
      const declaration = this.declared(module, node.text);
      if (ts.isFunctionDeclaration(declaration)) continue;
      if (!ts.isVariableDeclaration(declaration) || !declaration.initializer) return void undecided('node');
      const home = this.moduleOf(declaration);
      if (isFunction(ts, declaration.initializer) || this.isToolNode(declaration.initializer, home)) continue;
      out[`${prefix}${name.text}`] = this.graph(declaration.initializer, home);
      this.subgraphs(declaration.initializer, home, `${prefix}${name.text}|`, out, seen);
    }
  }

  /** `new ToolNode(…)` of LangGraph's prebuilt: a node, not a graph. */
  private isToolNode(node: TS.Expression, module: Module): boolean {
    const ts = this.ts;
    if (!ts.isNewExpression(node) || !ts.isIdentifier(node.expression) || module.declarations.has(node.expression.text)) return false;
    const imported = module.imports.get(node.expression.text);
    return imported?.name === 'ToolNode' && /^@langchain\/langgraph(\/web)?(\/prebuilt)?$/.test(imported.from);
  }
}

type Member =
  | { kind: 'string'; value: string }
  | { kind: 'number'; value: number }
  | { kind: 'boolean'; value?: boolean }
  | { kind: 'null' | 'undefined'; value?: undefined }
  | { kind: 'keyword'; value: TS.SyntaxKind }
  | { kind: 'type'; node: TS.TypeNode; module: Module };
