// What both readers of a graph's types write (staticSchemaWorker.ts, with the type checker;
// staticSchemaSyntax.ts, from the source text alone), so that a graph's schemas are the same
// JSON whichever of them read it: the message definition, a messages channel's update, and the
// assembly of the state, input, output and config schemas.
import type { DeclaredSchemas } from '../../domain/agent/graphs/declaredSchemas.ts';

export type Schema = Record<string, unknown>;

/** How deep an object's fields are written; deeper objects are `{}`. */
export const MAX_DEPTH = 6;

const BASE_MESSAGE: Schema = {
  type: 'object',
  description: 'A LangChain message',
  properties: {
    type: { type: 'string' },
    content: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
    id: { type: 'string' },
    name: { type: 'string' },
  },
};

/** A LangChain message, by reference to its one definition (added to `definitions`). */
export function messageRef(definitions: Record<string, Schema>): Schema {
  definitions.BaseMessage ??= BASE_MESSAGE;
  return { $ref: '#/definitions/BaseMessage' };
}

/**
 * An object of any keys whose values are all of one plain type (`Record<string, any>`,
 * `{ [key: string]: number }`), by reference to a definition named by the type's text, as
 * upstream's generator writes such an anonymous type: `{[x:string]:any;}` (`{}` for unknown).
 */
export function recordRef(definitions: Record<string, Schema>, valueText: 'any' | '{}' | 'string' | 'number' | 'boolean'): Schema {
  const name = `{[x:string]:${valueText};}`;
  definitions[name] ??= { type: 'object' };
  return { $ref: `#/definitions/${name}` };
}

export const MESSAGE_LIST: Schema = { type: 'array', items: { $ref: '#/definitions/BaseMessage' } };

/**
 * What a messages channel (a list of messages with LangGraph's messages reducer) takes as an
 * update: one message or a list, each a message, its text, a {role, content} object or a
 * [role, content] pair. The checker would spell LangChain's BaseMessageLike out member by
 * member, which says less and changes with every LangChain release.
 */
export function messagesUpdate(definitions: Record<string, Schema>): Schema {
  const one = [messageRef(definitions), { type: 'string' }, { type: 'object' }, { type: 'array' }];
  return { anyOf: [{ type: 'array', items: { anyOf: one } }, ...one] };
}

/** The domain's four schemas of a graph (state, input, output, config), each written here. */
export type TypedGraphSchemas = Record<keyof DeclaredSchemas, Schema>;

/** An object's fields and the definitions they refer to. */
export interface SchemaFields {
  fields: Record<string, Schema>;
  definitions: Record<string, Schema>;
}

/**
 * The four schemas from the fields of the state, of the input and of the output (each with
 * the definitions it refers to, left out when none, as upstream's generator writes them) and
 * of the config (undefined: none declared).
 */
export function assembleSchemas(
  state: SchemaFields,
  input: SchemaFields,
  output: SchemaFields,
  config: Record<string, Schema> | undefined,
  configDefinitions: Record<string, Schema>,
): TypedGraphSchemas {
  const draft = { $schema: 'http://json-schema.org/draft-07/schema#' };
  const object = ({ fields, definitions }: SchemaFields) => ({
    type: 'object',
    properties: fields,
    ...(Object.keys(definitions).length ? { definitions } : {}),
    ...draft,
  });
  return {
    state: object(state),
    input: object(input),
    output: object(output),
    // a graph that declares no config: an object of any fields
    config: config ? object({ fields: config, definitions: configDefinitions }) : { type: 'object', ...draft },
  };
}
