// Test helpers for A2A: fixture graphs, the a2a-js client, raw JSON-RPC calls and the
// spec's result validators (every result a test receives is checked).
import assert from 'node:assert/strict';
import path from 'node:path';
import { A2AClient } from '@a2a-js/sdk/client';
import * as results from '../../../generated/a2a/response.validators.gen.js';
import { ROOT } from '../../support/server.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/graphs/a2a.ts');
/** The A2A fixture graphs (test/fixtures/graphs/a2a.ts) by name, for the real agent server. */
export const fixtureGraphs = Object.fromEntries(['echo', 'files', 'slow', 'data', 'failing'].map((name) => [name, `${FIXTURE}:${name}`]));

const validators: Record<string, { (v: unknown): boolean; errors?: unknown }> = {
  'message/send': results.message_send,
  'message/stream': results.message_stream,
  'tasks/get': results.tasks_get,
  'tasks/cancel': results.tasks_cancel,
  'tasks/resubscribe': results.tasks_resubscribe,
};

/** Asserts that a method's result matches spec/a2a.openrpc.json. */
export function assertValidResult(method: string, result: unknown): void {
  const validate = validators[method];
  assert.ok(validate(result), `${method} result violates the spec: ${JSON.stringify(validate.errors)}\n${JSON.stringify(result)}`);
}

/** The code of a JSON-RPC error response, after checking it has the spec's error shape. */
export function errorCode(response: any): number | undefined {
  const error = response?.error;
  if (error === undefined) return undefined;
  assert.equal(response.jsonrpc, '2.0');
  assert.ok(Number.isInteger(error.code) && typeof error.message === 'string' && error.message.length > 0, JSON.stringify(error));
  assert.equal('result' in response, false);
  return error.code;
}

/** The a2a-js client of an assistant, from its card; `send` is its fetch (an in-process app's, or the network's). */
export async function clientFor(baseUrl: string, assistant: string, send: typeof fetch = fetch): Promise<A2AClient> {
  return A2AClient.fromCardUrl(`${baseUrl}/.well-known/agent-card.json?assistant_id=${encodeURIComponent(assistant)}`, { fetchImpl: send });
}

/** A raw JSON-RPC call (for envelope cases the client library cannot produce). */
export async function rpc(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  send: typeof fetch = fetch,
): Promise<{ status: number; json: any; text: string }> {
  const res = await send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, json, text };
}

/** Every data line of an SSE body, parsed. */
export async function sseFrames(res: Response): Promise<any[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

export const userText = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { kind: 'message' as const, role: 'user' as const, messageId: crypto.randomUUID(), parts: [{ kind: 'text' as const, text }], ...extra },
});
