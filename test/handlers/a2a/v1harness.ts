// Test helpers for A2A v1.0: the @a2a-js/sdk 1.3.0 clients (default and opt-in 0.3), raw
// v1.0 JSON-RPC calls, and the v1.0 OpenRPC result validators (every raw result is checked).
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk-v1/client';
import { Role, TaskState, type ListTasksRequest, type Message, type Part } from '@a2a-js/sdk-v1';
import * as results from '../../../generated/a2a-v1/response.validators.gen.js';
import { ROOT } from '../../support/server.ts';
import { fixtureGraphs } from './harness.ts';

/** The fixture graphs, and the example graphs that stop at an interrupt (interrupt()) and at a breakpoint. */
export const v1Graphs = {
  ...fixtureGraphs,
  approval: path.join(ROOT, 'examples/graphs/approval.ts:approval'),
  breakpoint: path.join(ROOT, 'examples/graphs/approval.ts:breakpoint'),
};

/**
 * The SDK's default client, as an agent developer makes it today. Given `send` (an in-process
 * app's fetch), the same default transports (JSON-RPC and HTTP+JSON) and card resolver send
 * through it: the SDK's `fetchImpl` option on each.
 */
export function defaultClient(baseUrl: string, assistant: string, send?: typeof fetch): Promise<Client> {
  const factory = send
    ? new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          cardResolver: new DefaultAgentCardResolver({ fetchImpl: send }),
          transports: [new JsonRpcTransportFactory({ fetchImpl: send }), new RestTransportFactory({ fetchImpl: send })],
        }),
      )
    : new ClientFactory();
  return factory.createFromUrl(baseUrl, `/.well-known/agent-card.json?assistant_id=${encodeURIComponent(assistant)}`);
}

/** The SDK's opt-in v0.3 client (the compatibility guide's factory), sending through `send` if given. */
export function legacyFactory(send?: typeof fetch): ClientFactory {
  const legacyCompat = { enabled: true };
  const fetchImpl = send ? { fetchImpl: send } : {};
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ legacyCompat, ...fetchImpl }),
      transports: [new JsonRpcTransportFactory({ legacyCompat, ...fetchImpl }), new RestTransportFactory({ legacyCompat, ...fetchImpl })],
    }),
  );
}

export const text = (value: string): Part => ({ content: { $case: 'text', value }, filename: '', mediaType: '', metadata: undefined });
export const data = (value: unknown): Part => ({ content: { $case: 'data', value }, filename: '', mediaType: '', metadata: undefined });

/** A user message as the SDK 1.3.0 client takes it (proto objects). */
export function userMessage(parts: Message['parts'], ids: { contextId?: string; taskId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts,
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    extensions: [],
    referenceTaskIds: [],
    metadata: undefined,
  };
}

export const sendRequest = (message: Message, configuration?: Record<string, unknown>) =>
  ({ tenant: '', message, configuration: configuration as never, metadata: undefined }) as const;

/** A ListTasks request for a context, every other field at its default, as the SDK's typed request wants them spelt out. */
export const listTasksRequest = (contextId: string, fields: Partial<ListTasksRequest> = {}): ListTasksRequest => ({
  tenant: '',
  contextId,
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageSize: undefined,
  pageToken: '',
  historyLength: undefined,
  statusTimestampAfter: undefined,
  includeArtifacts: undefined,
  ...fields,
});

/** The text of the first part of the task's artifact. */
export const artifactText = (task: { artifacts?: { parts: { content?: { $case: string; value?: unknown } }[] }[] }) =>
  task.artifacts?.[0]?.parts[0]?.content?.value;

const validators: Record<string, { (v: unknown): boolean; errors?: unknown }> = results as never;

/** A raw v1.0 JSON-RPC call (A2A-Version: 1.0 unless told), its result checked against spec/a2a-v1.openrpc.json. */
export async function rpcV1(
  url: string,
  method: string,
  params: unknown,
  /** `send`: the fetch to call with (an in-process app's), the network's by default. */
  options: { version?: string | null; id?: unknown; body?: string; headers?: Record<string, string>; send?: typeof fetch } = {},
): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const version = options.version === undefined ? '1.0' : options.version;
  const res = await (options.send ?? fetch)(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(version === null ? {} : { 'A2A-Version': version }),
      ...options.headers,
    },
    body: options.body ?? JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 1, method, params }),
  });
  const body = await res.text();
  let json: any;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const validate = validators[method];
  if (json?.result !== undefined && validate)
    assert.ok(validate(json.result), `${method} result violates the spec: ${JSON.stringify(validate.errors)}\n${body}`);
  return { status: res.status, json, text: body, headers: res.headers };
}

/** The google.rpc.ErrorInfo of a v1.0 error, after checking the error's shape (§9.5). */
export function errorInfo(error: any): { reason: string; domain: string; metadata?: Record<string, string> } {
  assert.ok(Number.isInteger(error?.code) && typeof error.message === 'string' && error.message.length > 0, JSON.stringify(error));
  assert.ok(Array.isArray(error.data), `error.data is an array: ${JSON.stringify(error)}`);
  for (const detail of error.data) assert.equal(typeof detail['@type'], 'string');
  const info = error.data.find((d: any) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
  assert.ok(info, JSON.stringify(error.data));
  return info;
}

/** Every data line of an SSE body, parsed. */
export async function sse(res: Response): Promise<any[]> {
  return (await res.text())
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}
