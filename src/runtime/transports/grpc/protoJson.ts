// Protocol Buffers messages ⇄ their ProtoJSON form (protobuf.dev/programming-guides/json), by
// the message types of a loaded .proto: what a gRPC call carries in binary is handed to the
// HTTP side as the JSON a ProtoJSON client would send, and the JSON answer goes back as binary.
// protobufjs reads and writes the binary; the well-known types its object form leaves as
// messages (Struct, Value, ListValue, Timestamp) are written here as ProtoJSON writes them.
import protobuf from 'protobufjs';

type Json = unknown;
type Dict = Record<string, unknown>;

const STRUCT = '.google.protobuf.Struct';
const VALUE = '.google.protobuf.Value';
const LIST = '.google.protobuf.ListValue';
const TIMESTAMP = '.google.protobuf.Timestamp';

/** protobufjs' object form: enums by name, bytes as base64, only the fields that were set. */
const OBJECT_FORM: protobuf.IConversionOptions = { enums: String, longs: String, bytes: String, defaults: false, arrays: false, oneofs: false };

/** Loads a .proto file (its google/protobuf imports are protobufjs' own copies). */
export function loadProto(file: string): protobuf.Root {
  const root = new protobuf.Root();
  root.loadSync(file, { keepCase: false });
  root.resolveAll();
  return root;
}

/** A message as ProtoJSON. */
export function toProtoJson(type: protobuf.Type, message: protobuf.Message): Json {
  return jsonOfMessage(type, type.toObject(message, OBJECT_FORM));
}

/** ProtoJSON as a message of `type`; unknown fields are ignored, a value of the wrong kind throws. */
export function fromProtoJson(type: protobuf.Type, json: Json): protobuf.Message {
  return type.fromObject(objectOfMessage(type, json) as Dict);
}

function jsonOfMessage(type: protobuf.Type, object: Dict): Json {
  switch (type.fullName) {
    case STRUCT:
      return jsonOfStruct(object);
    case VALUE:
      return jsonOfValue(object);
    case LIST:
      return ((object.values as Dict[] | undefined) ?? []).map(jsonOfValue);
    case TIMESTAMP:
      return jsonOfTimestamp(object);
  }
  const out: Dict = {};
  for (const [name, value] of Object.entries(object)) {
    const field = type.fields[name];
    out[name] = field ? jsonOfField(field, value) : value;
  }
  return out;
}

function jsonOfField(field: protobuf.Field, value: unknown): Json {
  const type = field.resolvedType;
  if (!(type instanceof protobuf.Type)) return value;
  if (field.map) return mapValues(value as Dict, (v) => jsonOfMessage(type, v as Dict));
  if (field.repeated) return (value as Dict[]).map((v) => jsonOfMessage(type, v));
  return jsonOfMessage(type, value as Dict);
}

function jsonOfStruct(object: Dict): Dict {
  return mapValues((object.fields as Dict | undefined) ?? {}, (v) => jsonOfValue(v as Dict));
}

function jsonOfValue(value: Dict): Json {
  if ('structValue' in value) return jsonOfStruct(value.structValue as Dict);
  if ('listValue' in value) return (((value.listValue as Dict).values as Dict[] | undefined) ?? []).map(jsonOfValue);
  if ('stringValue' in value) return value.stringValue;
  if ('numberValue' in value) return value.numberValue;
  if ('boolValue' in value) return value.boolValue;
  return null;
}

function jsonOfTimestamp(object: Dict): string {
  const ms = Number(object.seconds ?? 0) * 1000 + Math.floor(Number(object.nanos ?? 0) / 1e6);
  return new Date(ms).toISOString();
}

function objectOfMessage(type: protobuf.Type, json: Json): Json {
  switch (type.fullName) {
    case STRUCT:
      return objectOfStruct(json);
    case VALUE:
      return objectOfValue(json);
    case LIST:
      return { values: asArray(json).map(objectOfValue) };
    case TIMESTAMP:
      return objectOfTimestamp(json);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TypeError(`${type.name}: an object expected`);
  const out: Dict = {};
  for (const [name, value] of Object.entries(json)) {
    const field = type.fields[name];
    // ProtoJSON readers ignore fields they do not know, and null means "not set"
    if (!field || value === null) continue;
    out[name] = objectOfField(field, value);
  }
  return out;
}

function objectOfField(field: protobuf.Field, value: unknown): unknown {
  const type = field.resolvedType;
  if (!(type instanceof protobuf.Type)) return value;
  if (field.map) return mapValues(value as Dict, (v) => objectOfMessage(type, v));
  if (field.repeated) return asArray(value).map((v) => objectOfMessage(type, v));
  return objectOfMessage(type, value);
}

function objectOfStruct(json: Json): Dict {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new TypeError('Struct: an object expected');
  return { fields: mapValues(json as Dict, objectOfValue) };
}

function objectOfValue(json: Json): Dict {
  if (json === null) return { nullValue: 'NULL_VALUE' };
  if (Array.isArray(json)) return { listValue: { values: json.map(objectOfValue) } };
  switch (typeof json) {
    case 'object':
      return { structValue: objectOfStruct(json) };
    case 'string':
      return { stringValue: json };
    case 'number':
      return { numberValue: json };
    case 'boolean':
      return { boolValue: json };
  }
  throw new TypeError(`Value: ${typeof json} is no JSON value`);
}

function objectOfTimestamp(json: Json): Dict {
  const ms = typeof json === 'string' ? Date.parse(json) : NaN;
  if (Number.isNaN(ms)) throw new TypeError(`Timestamp: an RFC 3339 date-time expected, got ${JSON.stringify(json)}`);
  // the fraction as written, to the nanosecond (Date keeps milliseconds only)
  const fraction = /\.(\d{1,9})/.exec(json as string)?.[1] ?? '';
  const seconds = Math.floor(ms / 1000);
  return { seconds: String(seconds), nanos: Number(fraction.padEnd(9, '0')) || 0 };
}

function asArray(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new TypeError('a list expected');
  return value;
}

function mapValues(object: Dict, fn: (value: unknown) => unknown): Dict {
  const out: Dict = {};
  for (const [key, value] of Object.entries(object)) out[key] = fn(value);
  return out;
}
