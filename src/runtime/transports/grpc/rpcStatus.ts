// A gRPC method's failure as a gRPC status: the code, the message, and the details (google.rpc
// ErrorInfo, BadRequest) as `grpc-status-details-bin`, the binary google.rpc.Status whose details
// are google.protobuf.Any — where gRPC clients (the A2A SDKs) read an error's reason from.
import { Metadata, status as Code, type StatusObject } from '@grpc/grpc-js';
import protobuf from 'protobufjs';

const TYPE_PREFIX = 'type.googleapis.com/';

/** google.rpc's Status and the two details this server sends, field for field as googleapis defines them. */
const rpc = protobuf.Root.fromJSON({
  nested: {
    google: {
      nested: {
        protobuf: { nested: { Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } } } },
        rpc: {
          nested: {
            Status: {
              fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 } },
            },
            ErrorInfo: {
              fields: { reason: { type: 'string', id: 1 }, domain: { type: 'string', id: 2 }, metadata: { keyType: 'string', type: 'string', id: 3 } },
            },
            BadRequest: {
              fields: { field_violations: { rule: 'repeated', type: 'FieldViolation', id: 1 } },
              nested: { FieldViolation: { fields: { field: { type: 'string', id: 1 }, description: { type: 'string', id: 2 } } } },
            },
          },
        },
      },
    },
  },
} satisfies Record<string, unknown> as protobuf.INamespace);
const StatusType = rpc.lookupType('google.rpc.Status');

/** A `grpc-status-details-bin` value as JSON: the code, the message and each detail with its `@type` (what a client reads). */
export function readStatusDetails(bytes: Uint8Array): { code: number; message: string; details: Record<string, unknown>[] } {
  const status = StatusType.toObject(StatusType.decode(bytes)) as { code?: number; message?: string; details?: { type_url: string; value: Uint8Array }[] };
  const details = (status.details ?? []).map((any) => {
    const type = rpc.lookupType(any.type_url.slice(TYPE_PREFIX.length));
    return { '@type': any.type_url, ...type.toObject(type.decode(any.value)) };
  });
  return { code: status.code ?? 0, message: status.message ?? '', details };
}

/** A failure of a gRPC method: a google.rpc.Code name, a message, and details in ProtoJSON's Any form (`{'@type', …}`). */
export interface GrpcError {
  code: keyof typeof Code;
  message: string;
  details?: Record<string, unknown>[];
}

/** The failure as a gRPC status: its code, its message, and its details as `grpc-status-details-bin` (a binary google.rpc.Status). */
export function grpcStatusOf(error: GrpcError): Partial<StatusObject> {
  const code = Code[error.code] ?? Code.UNKNOWN;
  const details = (error.details ?? []).flatMap(anyOf);
  const metadata = new Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(StatusType.encode(StatusType.fromObject({ code, message: error.message, details })).finish()));
  return { code, details: error.message, metadata };
}

type Dict = Record<string, unknown>;

/** One detail of the JSON form as a google.protobuf.Any; details of a type this server does not send are left out. */
function anyOf(detail: Dict): { type_url: string; value: Uint8Array }[] {
  const { '@type': typeUrl, ...fields } = detail;
  if (typeof typeUrl !== 'string' || !typeUrl.startsWith(TYPE_PREFIX)) return [];
  const type = rpc.lookup(typeUrl.slice(TYPE_PREFIX.length));
  if (!(type instanceof protobuf.Type) || !type.fullName.startsWith('.google.rpc.')) return [];
  const snake = type.name === 'BadRequest' ? { field_violations: fields.fieldViolations } : fields;
  return [{ type_url: typeUrl, value: type.encode(type.fromObject(snake)).finish() }];
}
