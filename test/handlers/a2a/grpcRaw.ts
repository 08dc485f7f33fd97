// A raw gRPC client of spec/a2a.proto speaking ProtoJSON, for the calls the SDK's client never
// makes (no version, bad params, bytes that are no message, a method the service lacks), and for
// sending the very same request to two servers in the differential suite.
import { credentials, makeGenericClientConstructor, Metadata, status as Code, type Client, type ServiceError } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { fromProtoJson, loadProto, toProtoJson } from '../../../src/runtime/transports/grpc/protoJson.ts';
import { readStatusDetails } from '../../../src/runtime/transports/grpc/rpcStatus.ts';
import { A2A_PROTO, A2A_SERVICE } from '../../../src/handlers/a2a/grpc.ts';

type Dict = Record<string, any>;
export type GrpcAnswer = { value?: Dict; error?: ServiceError };
export type GrpcStream = { events: Dict[]; error?: ServiceError };

const V1 = { 'a2a-version': '1.0' };

function metadataOf(headers: Dict): Metadata {
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(headers)) metadata.set(k, v);
  return metadata;
}

/** A Buffer is sent as it is (bytes that may be no message); anything else is ProtoJSON of the request type. */
const encoder = (type: protobuf.Type) => (value: unknown) => (Buffer.isBuffer(value) ? value : Buffer.from(type.encode(fromProtoJson(type, value)).finish()));

export function rawGrpc(address: string) {
  const root = loadProto(A2A_PROTO);
  const service = root.lookupService(A2A_SERVICE);
  const definition: Dict = {};
  for (const method of service.methodsArray) {
    const req = method.resolvedRequestType!;
    const res = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${A2A_SERVICE}/${method.name}`,
      requestStream: false,
      responseStream: !!method.responseStream,
      requestSerialize: encoder(req),
      requestDeserialize: (b: Buffer) => req.decode(b),
      responseSerialize: (m: protobuf.Message) => Buffer.from(res.encode(m).finish()),
      responseDeserialize: (b: Buffer) => toProtoJson(res, res.decode(b)),
    };
  }
  const Constructor = makeGenericClientConstructor(definition as never, A2A_SERVICE);
  const client = new Constructor(address, credentials.createInsecure()) as unknown as Client & Record<string, (...args: unknown[]) => any>;
  return {
    unary: (method: string, request: unknown, headers: Dict = V1) =>
      new Promise<GrpcAnswer>((resolve) =>
        client[method].call(client, request, metadataOf(headers), (error: ServiceError | null, value: Dict) => resolve(error ? { error } : { value })),
      ),
    /** A server stream read to its end, or until `until` says enough (then the call is cancelled). */
    stream: (method: string, request: unknown, headers: Dict = V1, until: (events: Dict[]) => boolean = () => false) =>
      new Promise<GrpcStream>((resolve) => {
        const events: Dict[] = [];
        const call = client[method].call(client, request, metadataOf(headers));
        call.on('data', (event: Dict) => {
          events.push(event);
          if (until(events)) {
            call.cancel();
            resolve({ events });
          }
        });
        call.on('error', (error: ServiceError) => resolve(error.code === Code.CANCELLED ? { events } : { events, error }));
        call.on('end', () => resolve({ events }));
      }),
    /** A unary call of a method path the proto may not have. */
    unaryAt: (path: string, bytes: Buffer, headers: Dict = V1) =>
      new Promise<GrpcAnswer>((resolve) =>
        client.makeUnaryRequest(
          path,
          (b: Buffer) => b,
          (b: Buffer) => ({ bytes: b.length }),
          bytes,
          metadataOf(headers),
          (error: ServiceError | null, value?: Dict) => resolve(error ? { error } : { value }),
        ),
      ),
    close: () => client.close(),
  };
}

/** The google.rpc.ErrorInfo (reason, domain) a gRPC error carries in grpc-status-details-bin, if any. */
export function grpcErrorInfo(error: ServiceError): { reason?: string; domain?: string } | undefined {
  const [bin] = error.metadata?.get('grpc-status-details-bin') ?? [];
  if (!bin) return undefined;
  const status = readStatusDetails(bin as Buffer);
  const info = status.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  return info ? { reason: info.reason as string, domain: info.domain as string } : undefined;
}
