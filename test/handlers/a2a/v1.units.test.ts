// A2A v1.0 rules in process: version negotiation, the wire mapping, error details, card signing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportJWK, flattenedVerify, generateKeyPair, exportPKCS8 } from 'jose';
import { cardVersion, negotiate, requestedVersion } from '../../../src/shared/a2aVersion.ts';
import { fromV1Message, toV1StreamResponse, toV1Task } from '../../../src/handlers/a2a/v1/wire.ts';
import { a2aError, GRPC_STATUS, HTTP_STATUS, JSONRPC_CODE, jsonRpcError, type A2AErrorKind } from '../../../src/handlers/a2a/v1/errors.ts';
import { canonicalCard, cardSigner } from '../../../src/handlers/a2a/v1/cardSigning.ts';

test('A2A-Version: none is 0.3, Major.Minor picks a served version (patch ignored), anything else is none; the header wins', () => {
  assert.equal(negotiate(requestedVersion(undefined, undefined)), '0.3');
  assert.equal(negotiate(requestedVersion('', undefined)), '0.3');
  assert.equal(negotiate('1.0'), '1.0');
  assert.equal(negotiate('1.0.2'), '1.0');
  assert.equal(negotiate('0.3'), '0.3');
  for (const bad of ['2.0', '1', '0.2', 'one', '1.0-beta', '1.1']) assert.equal(negotiate(bad), undefined, bad);
  assert.equal(requestedVersion('1.0', '0.3'), '1.0');
  assert.equal(requestedVersion(undefined, '1.0'), '1.0');
  assert.equal(cardVersion(''), '0.3');
  assert.equal(cardVersion('0.3'), '0.3');
  assert.equal(cardVersion('1.0'), '1.0');
  assert.equal(cardVersion('junk'), '1.0');
});

test('tasks and events map to ProtoJSON: enums by name, no kind, no final, timestamps in UTC with Z, empty history left out', () => {
  const task = toV1Task({
    kind: 'task',
    id: 't',
    contextId: 'c',
    status: { state: 'input-required', timestamp: '2026-01-01T10:00:00+00:00' },
    artifacts: [{ artifactId: 'a', parts: [{ kind: 'data', data: { x: 1 } }] }],
    history: [],
  });
  assert.deepEqual(task, {
    id: 't',
    contextId: 'c',
    status: { state: 'TASK_STATE_INPUT_REQUIRED', timestamp: '2026-01-01T10:00:00.000Z' },
    artifacts: [{ artifactId: 'a', parts: [{ data: { x: 1 }, mediaType: 'application/json' }] }],
  });
  assert.deepEqual(toV1Task({ kind: 'task', id: 't', contextId: 'c', status: { state: 'completed' }, artifacts: [] }, { artifacts: false }), {
    id: 't',
    contextId: 'c',
    status: { state: 'TASK_STATE_COMPLETED' },
  });
  assert.deepEqual(toV1StreamResponse({ kind: 'status-update', taskId: 't', contextId: 'c', status: { state: 'canceled' }, final: true }), {
    statusUpdate: { taskId: 't', contextId: 'c', status: { state: 'TASK_STATE_CANCELED' } },
  });
});

test('a v1.0 message maps back: roles by name, exactly one content a part, raw/url are file parts, empty ids are absent', () => {
  const ok = fromV1Message({
    messageId: 'm',
    role: 'ROLE_AGENT',
    contextId: '',
    parts: [{ text: 'hi' }, { url: 'https://x/y', mediaType: 'application/pdf' }],
  });
  assert.deepEqual(ok, {
    ok: true,
    value: {
      kind: 'message',
      messageId: 'm',
      role: 'agent',
      parts: [
        { kind: 'text', text: 'hi' },
        { kind: 'file', file: { uri: 'https://x/y', mimeType: 'application/pdf' } },
      ],
    },
  });
  assert.equal(fromV1Message({ messageId: 'm', role: 'ROLE_UNSPECIFIED', parts: [{ text: 'x' }] }).ok, false);
  const two = fromV1Message({ messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'x', data: { a: 1 } }] });
  assert.equal(two.ok, false);
  assert.equal(!two.ok && two.failure.data?.field, 'message.parts[0]');
  assert.equal(fromV1Message({ messageId: 'm', role: 'ROLE_USER', parts: [{}] }).ok, false);
});

test('errors: the JSON-RPC code of the kind, with a google.rpc.ErrorInfo in data', () => {
  assert.deepEqual(jsonRpcError(a2aError('TASK_NOT_FOUND', 'Task not found: t', { taskId: 't' })), {
    code: -32001,
    message: 'Task not found: t',
    data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 't' } }],
  });
  assert.equal(jsonRpcError(a2aError('VERSION_NOT_SUPPORTED', 'no')).code, -32009);
});

/**
 * The specification's §5.4 table as v1.0.1 gives it (a2aproject/A2A #1627 corrected v1.0.0's
 * 409, 415, 502 and UNIMPLEMENTED to the google.rpc.Code mapping: FAILED_PRECONDITION and
 * INVALID_ARGUMENT are 400, INTERNAL 500), which @a2a-js/sdk 1.3.0's server follows too.
 */
const SECTION_5_4: Record<Exclude<A2AErrorKind, 'INVALID_PARAMS' | 'INTERNAL'>, [number, string, number]> = {
  TASK_NOT_FOUND: [-32001, 'NOT_FOUND', 404],
  TASK_NOT_CANCELABLE: [-32002, 'FAILED_PRECONDITION', 400],
  PUSH_NOTIFICATION_NOT_SUPPORTED: [-32003, 'FAILED_PRECONDITION', 400],
  UNSUPPORTED_OPERATION: [-32004, 'FAILED_PRECONDITION', 400],
  CONTENT_TYPE_NOT_SUPPORTED: [-32005, 'INVALID_ARGUMENT', 400],
  INVALID_AGENT_RESPONSE: [-32006, 'INTERNAL', 500],
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: [-32007, 'FAILED_PRECONDITION', 400],
  EXTENSION_SUPPORT_REQUIRED: [-32008, 'FAILED_PRECONDITION', 400],
  VERSION_NOT_SUPPORTED: [-32009, 'FAILED_PRECONDITION', 400],
};

test('errors: each A2A error has the JSON-RPC code, gRPC status and HTTP status of the §5.4 table (v1.0.1)', () => {
  for (const [kind, expected] of Object.entries(SECTION_5_4) as [A2AErrorKind, [number, string, number]][]) {
    assert.deepEqual([JSONRPC_CODE[kind], GRPC_STATUS[kind], HTTP_STATUS[kind]], expected, kind);
  }
});

test('a signed card carries a JWS over its RFC 8785 form, which verifies with the public key; a changed card does not', async () => {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const sign = (card: object) => cardSigner({ key: pkcs8, kid: 'k1', alg: 'ES256' }).sign(card, 'http://agent.example');
  const pkcs8 = await exportPKCS8(privateKey);
  const card = {
    name: 'n',
    description: 'd',
    supportedInterfaces: [],
    version: '1',
    capabilities: { streaming: true },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };
  const signed = await sign(card);
  const [signature] = signed.signatures!;
  assert.deepEqual(JSON.parse(Buffer.from(signature.protected, 'base64url').toString()), {
    alg: 'ES256',
    typ: 'JOSE',
    kid: 'k1',
    jku: 'http://agent.example/.well-known/agent-card-jwks.json',
  });
  assert.equal(canonicalCard(signed), canonicalCard(card), 'the signatures are not part of what is signed');
  const payload = Buffer.from(canonicalCard(signed)).toString('base64url');
  await flattenedVerify({ ...signature, payload }, publicKey);
  const tampered = Buffer.from(canonicalCard({ ...card, name: 'other' })).toString('base64url');
  await assert.rejects(flattenedVerify({ ...signature, payload: tampered }, publicKey));
  const jwkSigner = cardSigner({ key: JSON.stringify(await exportJWK(privateKey)), kid: 'k2', alg: 'ES256' });
  assert.equal((await jwkSigner.sign(card, 'http://agent.example')).signatures.length, 1);
});
