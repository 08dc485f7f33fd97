// Test helpers for A2A: a server whose agent service can be a scripted fake, the a2a-js
// client, and the spec's result validators (every result a test receives is checked).
import assert from 'node:assert/strict';
import { A2AClient } from '@a2a-js/sdk/client';
import * as results from '../../generated/a2a/response.validators.gen.js';
import { handledOperationIds as controlPlaneIds } from '../../generated/control-plane/operations.gen.ts';
import { handledOperationIds as agentServerIds } from '../../generated/agent-server/operations.gen.ts';
import { createA2A } from '../../src/handlers/a2a/index.ts';
import { notImplementedHandlers } from '../../src/handlers/notImplemented.ts';
import type { AgentServerArea } from '../../src/handlers/agent-server/index.ts';
import type { AgentService } from '../../src/domain/agent/service.ts';
import type { AppFactory, Application } from '../../src/runtime/server.ts';

/** The real A2A area on top of a given agent service; every other operation is a 501 stub. */
export function appWithAgent(service: AgentService): AppFactory {
  return async (deps) => {
    const ids = [...controlPlaneIds, ...agentServerIds].filter((id) => id !== 'getAgentCard');
    const agentServer = { handlers: notImplementedHandlers(ids), modules: [], service } as unknown as AgentServerArea;
    const a2a = await createA2A(deps, agentServer);
    return {
      handlers: { ...agentServer.handlers, ...a2a.handlers } as Application['handlers'],
      methods: a2a.methods as unknown as Application['methods'],
      modules: [],
    };
  };
}

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

export async function clientFor(baseUrl: string, assistant: string): Promise<A2AClient> {
  return A2AClient.fromCardUrl(`${baseUrl}/.well-known/agent-card.json?assistant_id=${encodeURIComponent(assistant)}`);
}

/** A raw JSON-RPC call (for envelope cases the client library cannot produce). */
export async function rpc(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(url, {
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
