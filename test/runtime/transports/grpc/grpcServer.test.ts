// The runtime's gRPC server over a .proto (spec/a2a.proto here): methods see ProtoJSON and the
// call's metadata as headers; their results, streams and errors reach a gRPC client as the
// method's messages and as status codes whose details (grpc-status-details-bin) decode.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { credentials, makeGenericClientConstructor, Metadata, status as Code, type ServiceError } from '@grpc/grpc-js';
import type protobuf from 'protobufjs';
import { fromProtoJson, loadProto, toProtoJson } from '../../../../src/runtime/transports/grpc/protoJson.ts';
import { readStatusDetails } from '../../../../src/runtime/transports/grpc/rpcStatus.ts';
import { startGrpcServer, type GrpcCall, type RunningGrpcServer } from '../../../../src/runtime/transports/grpc/grpcServer.ts';
import { packagePath } from '../../../../src/runtime/packageRoot.ts';

const PROTO = packagePath('spec', 'a2a.proto');
const SERVICE = 'lf.a2a.v1.A2AService';
const root = loadProto(PROTO);

test('ProtoJSON survives the binary: Struct, Value, Timestamp, bytes, enums by name, oneofs, an explicit zero', () => {
  const type = root.lookupType('lf.a2a.v1.SendMessageRequest');
  const json = {
    tenant: 'echo',
    message: {
      messageId: 'm1',
      role: 'ROLE_USER',
      parts: [
        { text: 'hi' },
        { data: { a: [1, null, 'x', { b: true }] } },
        { raw: 'aGVsbG8=', mediaType: 'text/plain', filename: 'a.txt' },
        { data: 'a string' },
      ],
      metadata: { k: 'v', n: 2 },
    },
    configuration: { historyLength: 0, returnImmediately: true, acceptedOutputModes: ['text/plain'] },
  };
  assert.deepEqual(toProtoJson(type, type.decode(type.encode(fromProtoJson(type, json)).finish())), json);
  const events = root.lookupType('lf.a2a.v1.StreamResponse');
  const update = { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_WORKING', timestamp: '2025-06-01T12:00:05.123Z' } } };
  assert.deepEqual(toProtoJson(events, events.decode(events.encode(fromProtoJson(events, update)).finish())), update);
  // fields a reader does not know are ignored; a wrong kind of value is refused
  assert.deepEqual(toProtoJson(type, fromProtoJson(type, { tenant: 'x', unknown: 1 })), { tenant: 'x' });
  assert.throws(() => fromProtoJson(type, { message: 'not a message' }));
});

let server: RunningGrpcServer;
const seen: GrpcCall[] = [];

before(async () => {
  const methods = Object.fromEntries(
    root.lookupService(SERVICE).methodsArray.map((m) => [m.name, async () => ({ error: { code: 'UNIMPLEMENTED' as const, message: m.name } })]),
  );
  server = await startGrpcServer(
    {
      protoFile: PROTO,
      service: SERVICE,
      methods: {
        ...methods,
        GetTask: async (call) => {
          seen.push(call);
          return { result: { id: call.request.id, status: { state: 'TASK_STATE_COMPLETED' } } };
        },
        CancelTask: async () => ({
          error: {
            code: 'NOT_FOUND',
            message: 'Task not found: t1',
            details: [
              { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 't1' } },
            ],
          },
        }),
        SendStreamingMessage: async () => ({
          stream: (async function* () {
            yield { result: { task: { id: 't', status: { state: 'TASK_STATE_SUBMITTED' } } } };
            yield { result: { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } } };
          })(),
        }),
        SubscribeToTask: async () => ({
          stream: (async function* () {
            yield { result: { task: { id: 't', status: { state: 'TASK_STATE_WORKING' } } } };
            yield { error: { code: 'INTERNAL' as const, message: 'the run failed' } };
          })(),
        }),
      },
    },
    { host: '127.0.0.1', port: 0, maxMessageBytes: 1024 * 1024 },
  );
});
after(() => server.close());

function client() {
  const service = root.lookupService(SERVICE);
  const definition: Record<string, unknown> = {};
  for (const method of service.methodsArray) {
    const req = method.resolvedRequestType!;
    const res = method.resolvedResponseType!;
    definition[method.name] = {
      path: `/${SERVICE}/${method.name}`,
      requestStream: false,
      responseStream: !!method.responseStream,
      requestSerialize: (json: unknown) => Buffer.from(req.encode(fromProtoJson(req, json)).finish()),
      requestDeserialize: (b: Buffer) => req.decode(b),
      responseSerialize: (m: protobuf.Message) => Buffer.from(res.encode(m).finish()),
      responseDeserialize: (b: Buffer) => toProtoJson(res, res.decode(b)),
    };
  }
  const Client = makeGenericClientConstructor(definition as never, SERVICE);
  return new Client(`127.0.0.1:${server.port}`, credentials.createInsecure()) as unknown as Record<string, any> & { close(): void };
}

test('a unary call: ProtoJSON in, metadata as headers, the message back; an error as its code with decodable details', async () => {
  const c = client();
  try {
    const metadata = new Metadata();
    metadata.set('a2a-version', '1.0');
    metadata.set('x-api-key', 'k');
    const task = await new Promise<any>((resolve, reject) =>
      c.GetTask({ tenant: 'echo', id: 't1' }, metadata, (err: Error | null, v: unknown) => (err ? reject(err) : resolve(v))),
    );
    assert.deepEqual(task, { id: 't1', status: { state: 'TASK_STATE_COMPLETED' } });
    assert.deepEqual(seen[0].request, { tenant: 'echo', id: 't1' });
    assert.equal(seen[0].headers['a2a-version'], '1.0');
    assert.equal(seen[0].headers['x-api-key'], 'k');
    assert.equal(seen[0].headers['content-type'], undefined, "the call's own metadata is not the caller's");
    const error = await new Promise<ServiceError>((resolve) => c.CancelTask({ id: 't1' }, new Metadata(), (err: ServiceError) => resolve(err)));
    assert.equal(error.code, Code.NOT_FOUND);
    assert.equal(error.details, 'Task not found: t1');
    const status = readStatusDetails(error.metadata.get('grpc-status-details-bin')[0] as Buffer);
    assert.deepEqual(status, {
      code: Code.NOT_FOUND,
      message: 'Task not found: t1',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 't1' } }],
    });
  } finally {
    c.close();
  }
});

test('a streaming call: each item a message, the end the stream’s end; an error item ends it with its code', async () => {
  const c = client();
  try {
    const items: unknown[] = [];
    for await (const item of c.SendStreamingMessage({ message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x' }] } })) items.push(item);
    assert.deepEqual(items, [
      { task: { id: 't', status: { state: 'TASK_STATE_SUBMITTED' } } },
      { statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_COMPLETED' } } },
    ]);
    const got: unknown[] = [];
    await assert.rejects(
      (async () => {
        for await (const item of c.SubscribeToTask({ id: 't' })) got.push(item);
      })(),
      (err: ServiceError) => err.code === Code.INTERNAL && err.details === 'the run failed',
    );
    assert.deepEqual(got, [{ task: { id: 't', status: { state: 'TASK_STATE_WORKING' } } }]);
  } finally {
    c.close();
  }
});
