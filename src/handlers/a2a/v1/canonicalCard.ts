// The canonical form of an agent card that a signature covers (A2A §8.4.1): the card read as
// the v1.0 AgentCard message — fields it does not declare left out, fields at their default
// left out (an empty string, list or object; a value equal to the schema's `default`, proto3's
// non-optional `false`) — without `signatures`, in RFC 8785 form. It is the payload
// @a2a-js/sdk 1.3.0's canonicalizeAgentCard makes (AgentCard.fromJSON, then toJSON, then its
// removal of empty values) from the card as served, so its verifyAgentCardSignature accepts
// the card; and since only declared v1.0 fields count, the 0.3 card (which also carries
// `supportedInterfaces`) is canonicalized by the same rule. The declared fields are read from
// the AgentCard schema of spec/a2a-v1.openrpc.json, so the contract and the signature agree.
import { createRequire } from 'node:module';
import { loadDocument } from '../../../../generated/a2a-v1/document.gen.js';

// canonicalize is CommonJS (its module.exports is the function) while its types declare an ES
// default export, which TypeScript reads from an ES module as a property of the module object:
// an import would need a cast either way, so it is required and its signature written here
const canonicalize: (input: unknown) => string | undefined = createRequire(import.meta.url)('canonicalize');

interface Schema {
  $ref?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  default?: unknown;
}

const schemas = (loadDocument().components as { schemas: Record<string, Schema> }).schemas;

const resolve = (schema: Schema): Schema => (schema.$ref ? resolve(schemas[schema.$ref.slice('#/components/schemas/'.length)]!) : schema);

/** `value` as the schema declares it, with every default-valued part left out; undefined when nothing is left. */
function declared(value: unknown, schema: Schema | undefined): unknown {
  const shape = schema ? resolve(schema) : undefined;
  if (value === undefined || value === null || value === '') return undefined;
  if (shape && 'default' in shape && value === shape.default) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => declared(item, shape?.items)).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === 'object') {
    const kept: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
      // a message keeps its own fields; a map types each value; a Struct (no declared shape) keeps all
      const fieldSchema = shape?.properties ? shape.properties[key] : typeof shape?.additionalProperties === 'object' ? shape.additionalProperties : undefined;
      if (shape?.properties && !fieldSchema) continue;
      const keptField = declared(field, fieldSchema);
      if (keptField !== undefined) kept[key] = keptField;
    }
    return Object.keys(kept).length > 0 ? kept : undefined;
  }
  return value;
}

/** The signed payload of a card (v1.0 or 0.3): its canonical form, `signatures` excluded. */
export function canonicalCard(card: object): string {
  const { signatures: _signatures, ...unsigned } = card as { signatures?: unknown };
  return canonicalize(declared(unsigned, { $ref: '#/components/schemas/AgentCard' }) ?? {}) as string;
}
