// A gRPC server for one service of a .proto file whose methods are plain functions of ProtoJSON:
// the call's message arrives as the JSON a ProtoJSON client would send (protoJson.ts), with the
// call's metadata as headers, and the answer — a message, a stream of them, or an error with a
// google.rpc code name and details — goes back as the method's message, stream or gRPC status.
// What a method does, and who may call it, is the application's (Application.grpc).
import {
  logVerbosity,
  Server,
  ServerCredentials,
  setLogVerbosity,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { fromProtoJson, loadProto, toProtoJson } from './protoJson.ts';
import { grpcStatusOf, type GrpcError } from './rpcStatus.ts';

export type { GrpcError } from './rpcStatus.ts';

// grpc-js writes its own errors to stderr (a taken port as "E No address added out of total 1
// resolved"); each of them also reaches the caller, which says it in the server's log. Its own
// lines stay available for debugging through grpc-js's GRPC_VERBOSITY.
if (!process.env.GRPC_VERBOSITY) setLogVerbosity(logVerbosity.NONE);

/** One call as a method sees it. */
export interface GrpcCall {
  /** The message, as ProtoJSON. */
  request: Record<string, unknown>;
  /** The call's metadata as headers: lower-case names, text values (binary `-bin` entries left out). */
  headers: Record<string, string>;
  /** The caller's address (host:port). */
  peer: string;
  /** Aborted when the caller cancels or goes away. */
  signal: AbortSignal;
}

export type GrpcAnswer = { result: unknown } | { error: GrpcError };
export type GrpcMethod = (call: GrpcCall) => Promise<GrpcAnswer | { stream: AsyncIterable<GrpcAnswer> }>;

export interface GrpcService {
  protoFile: string;
  /** The service's full name in the proto (`package.Service`). */
  service: string;
  /** Every method of the service, by its name in the proto. */
  methods: Readonly<Record<string, GrpcMethod>>;
}

export interface RunningGrpcServer {
  port: number;
  close(): Promise<void>;
}

/** Metadata that belongs to the call itself, not to its caller. */
const OWN_METADATA = new Set(['content-type', 'te', 'host', 'content-length', 'connection', 'transfer-encoding', 'accept-encoding']);

export interface GrpcServerOptions {
  host: string;
  port: number;
  /**
   * The largest message a call may send, in bytes: the HTTP bindings' body limit
   * (AGENTPLANE_MAX_BODY_BYTES), so that a request refused on one binding is refused on all;
   * grpc-js's own default (4 MiB) let through what HTTP+JSON and JSON-RPC refused. A larger one
   * is RESOURCE_EXHAUSTED before it is decoded.
   */
  maxMessageBytes: number;
}

export async function startGrpcServer(spec: GrpcService, options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const root = loadProto(spec.protoFile);
  const service = root.lookupService(spec.service);
  const definition: Record<string, ServiceDefinition[string]> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const method of service.methodsArray) {
    const serve = spec.methods[method.name];
    if (!serve) throw new Error(`${spec.service}.${method.name} has no implementation`);
    const requestType = method.resolvedRequestType!;
    const responseType = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${spec.service}/${method.name}`,
      requestStream: false,
      responseStream: !!method.responseStream,
      requestSerialize: (message: protobuf.Message) => Buffer.from(requestType.encode(message).finish()),
      requestDeserialize: (bytes: Buffer) => toProtoJson(requestType, requestType.decode(bytes)),
      responseSerialize: (message: protobuf.Message) => Buffer.from(responseType.encode(message).finish()),
      responseDeserialize: (bytes: Buffer) => responseType.decode(bytes),
      originalName: method.name,
    };
    implementation[method.name] = method.responseStream
      ? (call: ServerWritableStream<Record<string, unknown>, protobuf.Message>) => void serveStream(call, serve, responseType)
      : (call: ServerUnaryCall<Record<string, unknown>, protobuf.Message>, done: sendUnaryData<protobuf.Message>) =>
          void serveUnary(call, done, serve, responseType);
  }
  const server = new Server({ 'grpc.max_receive_message_length': options.maxMessageBytes });
  server.addService(definition as ServiceDefinition, implementation);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${options.port}`, ServerCredentials.createInsecure(), (err, bound) => (err ? reject(err) : resolve(bound))),
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        // calls in flight get a moment, as the HTTP server gives its own; then they are cut
        const cut = setTimeout(() => server.forceShutdown(), 5_000);
        server.tryShutdown(() => {
          clearTimeout(cut);
          resolve();
        });
      }),
  };
}

type AnyCall = ServerUnaryCall<Record<string, unknown>, protobuf.Message> | ServerWritableStream<Record<string, unknown>, protobuf.Message>;

function callOf(call: AnyCall): { call: GrpcCall; abort: AbortController } {
  const abort = new AbortController();
  call.once('cancelled', () => abort.abort());
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.metadata.getMap())) {
    if (typeof value !== 'string' || name.startsWith(':') || name.startsWith('grpc-') || OWN_METADATA.has(name)) continue;
    headers[name] = value;
  }
  return { call: { request: call.request, headers, peer: call.getPeer(), signal: abort.signal }, abort };
}

async function serveUnary(
  grpcCall: ServerUnaryCall<Record<string, unknown>, protobuf.Message>,
  done: sendUnaryData<protobuf.Message>,
  serve: GrpcMethod,
  type: protobuf.Type,
): Promise<void> {
  const { call } = callOf(grpcCall);
  try {
    const answer = await serve(call);
    if ('stream' in answer) throw new Error('a unary method answered a stream');
    if ('error' in answer) return done(grpcStatusOf(answer.error), null);
    done(null, fromProtoJson(type, answer.result ?? {}));
  } catch (err) {
    done(grpcStatusOf(internal(err)), null);
  }
}

async function serveStream(grpcCall: ServerWritableStream<Record<string, unknown>, protobuf.Message>, serve: GrpcMethod, type: protobuf.Type): Promise<void> {
  const { call, abort } = callOf(grpcCall);
  try {
    const answer = await serve(call);
    if (!('stream' in answer)) {
      if ('error' in answer) return void grpcCall.emit('error', grpcStatusOf(answer.error));
      throw new Error('a streaming method answered one message');
    }
    for await (const item of answer.stream) {
      if (abort.signal.aborted) return;
      if ('error' in item) return void grpcCall.emit('error', grpcStatusOf(item.error));
      // past the stream's buffer the next event waits for the caller to take what was written
      if (!grpcCall.write(fromProtoJson(type, item.result))) await new Promise((resolve) => grpcCall.once('drain', resolve));
    }
    grpcCall.end();
  } catch (err) {
    if (!abort.signal.aborted) grpcCall.emit('error', grpcStatusOf(internal(err)));
  }
}

function internal(err: unknown): GrpcError {
  return { code: 'INTERNAL', message: err instanceof Error ? err.message : 'The gRPC method failed.' };
}
