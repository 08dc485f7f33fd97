// The JSON schemas a graph's author declared: a LangGraph StateSchema, or Zod schemas (with
// what withLangGraph / the LangGraph schema registry adds, such as `langgraph_type:
// "messages"` and reducer schemas), for the state, input, output and config/context. Read
// the way the upstream JS server reads them, in the same order (StateSchema, the Zod registry,
// plain Zod), through the project's own copy of @langchain/langgraph and @langchain/core: the
// registry is a module singleton, so only the copy the graph registered with knows its entries.
import { importProjectLibrary as projectLibrary } from '../../../shared/projectModule.ts';

export interface DeclaredSchemas {
  state: Record<string, unknown> | undefined;
  input: Record<string, unknown> | undefined;
  output: Record<string, unknown> | undefined;
  config: Record<string, unknown> | undefined;
}

/** The builder fields of a StateGraph that hold what its author declared. */
interface BuilderLike {
  _schemaRuntimeDefinition?: unknown;
  _inputRuntimeDefinition?: unknown;
  _outputRuntimeDefinition?: unknown;
  _configRuntimeSchema?: unknown;
}

/** Input inherits the state's fields, all optional (LangGraph marks it with this symbol). */
const PARTIAL_STATE = Symbol.for('langgraph.state.partial');

type JsonSchemaOf = (graph: unknown) => Record<string, unknown> | undefined;

/**
 * The declared schemas of a compiled graph, or undefined when it declares none this way
 * (an Annotation graph: its types exist only in its TypeScript source).
 * `sourceFile` is the project module the graph came from (to find the project's libraries).
 */
export async function declaredSchemas(graph: unknown, sourceFile: string | undefined): Promise<DeclaredSchemas | undefined> {
  const builder = (graph as { builder?: BuilderLike } | undefined)?.builder;
  if (!builder) return undefined;
  return fromStateSchema(builder) ?? (await fromZodRegistry(graph, sourceFile)) ?? (await fromPlainZod(builder, sourceFile));
}

interface StateSchemaLike {
  getJsonSchema(): Record<string, unknown>;
  getInputJsonSchema(): Record<string, unknown>;
}

const isStateSchema = (value: unknown): value is StateSchemaLike =>
  !!value &&
  typeof value === 'object' &&
  typeof (value as StateSchemaLike).getJsonSchema === 'function' &&
  typeof (value as StateSchemaLike).getInputJsonSchema === 'function';

function fromStateSchema(builder: BuilderLike): DeclaredSchemas | undefined {
  const { _schemaRuntimeDefinition: state, _inputRuntimeDefinition: input, _outputRuntimeDefinition: output } = builder;
  if (!isStateSchema(state) && !isStateSchema(input) && !isStateSchema(output)) return undefined;
  const inputSchema = isStateSchema(input)
    ? input.getInputJsonSchema()
    : input === PARTIAL_STATE && isStateSchema(state)
      ? state.getInputJsonSchema()
      : undefined;
  const result = {
    state: isStateSchema(state) ? state.getJsonSchema() : undefined,
    input: inputSchema,
    output: isStateSchema(output) ? output.getJsonSchema() : undefined,
    config: undefined,
  };
  return result.state || result.input || result.output ? result : undefined;
}

async function fromZodRegistry(graph: unknown, sourceFile: string | undefined): Promise<DeclaredSchemas | undefined> {
  try {
    const lib = (await projectLibrary(sourceFile, '@langchain/langgraph', './zod/schema')) as Record<string, JsonSchemaOf>;
    const result = {
      state: lib.getUpdateTypeSchema(graph),
      input: lib.getInputTypeSchema(graph),
      output: lib.getOutputTypeSchema(graph),
      config: lib.getConfigTypeSchema(graph),
    };
    return Object.values(result).every((schema) => schema == null) ? undefined : result;
  } catch {
    return undefined; // a schema the converter cannot write: try without the registry
  }
}

async function fromPlainZod(builder: BuilderLike, sourceFile: string | undefined): Promise<DeclaredSchemas | undefined> {
  try {
    const { toJsonSchema } = (await projectLibrary(sourceFile, '@langchain/core', './utils/json_schema')) as {
      toJsonSchema(schema: unknown): Record<string, unknown>;
    };
    const { isZodSchemaV3, isZodSchemaV4 } = (await projectLibrary(sourceFile, '@langchain/core', './utils/types')) as Record<string, (v: unknown) => boolean>;
    const convert = (schema: unknown) => {
      if (!schema || !(isZodSchemaV4(schema) || isZodSchemaV3(schema))) return undefined;
      try {
        return toJsonSchema(schema);
      } catch {
        return undefined;
      }
    };
    const state = convert(builder._schemaRuntimeDefinition);
    // no input schema of its own: the state's, with nothing required
    const input = convert(builder._inputRuntimeDefinition) ?? (state ? { ...state, required: undefined } : undefined);
    const result = { state, input, output: convert(builder._outputRuntimeDefinition), config: convert(builder._configRuntimeSchema) };
    return Object.values(result).every((schema) => schema == null) ? undefined : result;
  } catch {
    return undefined;
  }
}
