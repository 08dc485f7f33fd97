// A2A v1.0 differential: the same JSON-RPC scenarios sent to the @a2a-js/sdk 1.3.0 reference
// server (DefaultRequestHandler with an echo and an interrupting executor, started here on
// loopback, with v0.3 compatibility on as in its compat-v1-server sample) and to agentplane
// (the echo fixture graph and the approval example graph), answers normalised (ids,
// timestamps and free text out) and compared. Deliberate differences are listed in
// a2a-v1-deliberate-differences.json, each with its reason, and checked to still hold.
import { after, before, describe, test } from 'node:test';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { AgentInterface } from '@a2a-js/sdk-v1';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk-v1/server/express';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { v1Graphs } from './v1harness.ts';
import { compareWithReference, referenceHandler } from '../../differential/a2aReference.ts';

// express comes with the SDK's server (its peer); it has no types here, and only use() and the request listener are needed
type ExpressApp = http.RequestListener & { use(path: string, handler: unknown): void };
const express = createRequire(import.meta.url)('express') as () => ExpressApp;

async function referenceAgent(path: string, interrupting: boolean, app: ExpressApp, base: () => string) {
  const handler = referenceHandler(path, {
    interrupting,
    interfaces: () =>
      [
        { url: `${base()}/${path}`, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
        { url: `${base()}/${path}`, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
      ] as AgentInterface[],
  });
  app.use(`/${path}/card`, agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
  app.use(`/${path}`, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));
}

let reference: http.Server;
let referenceUrl = '';
let server: TestServer;

before(async () => {
  const app = express();
  await referenceAgent('echo', false, app, () => referenceUrl);
  await referenceAgent('approval', true, app, () => referenceUrl);
  reference = http.createServer(app);
  await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve));
  referenceUrl = `http://127.0.0.1:${(reference.address() as AddressInfo).port}`;
  server = await startTestServer({ project: { graphs: v1Graphs } });
});
after(async () => {
  await new Promise((resolve) => reference.close(resolve));
  await server.close();
});

type Target = { name: 'reference' | 'agentplane'; endpoint: (assistant: string) => string };
const targets = (): Target[] => [
  { name: 'reference', endpoint: (a) => `${referenceUrl}/${a}` },
  { name: 'agentplane', endpoint: (a) => `${server.url}/a2a/${a}` },
];

async function call(url: string, method: string, params: unknown, version: string | null = '1.0'): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(version === null ? {} : { 'A2A-Version': version }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body: any = await res.json();
  return { status: res.status, ...body };
}

const message = (value: string, ids: Record<string, string> = {}) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: value }], ...ids });

/** What a client relies on: the error's code and reason, or the result's kind, state and reply text. */
function normalise(answer: any): unknown {
  if (answer.error) {
    const info = Array.isArray(answer.error.data) ? answer.error.data.find((d: any) => d?.['@type']?.endsWith('ErrorInfo')) : undefined;
    return { status: answer.status, error: answer.error.code, reason: info?.reason ?? null };
  }
  const result = answer.result;
  const task = result?.task ?? (result?.status ? result : undefined);
  if (task) {
    const artifact = task.artifacts?.[0]?.parts?.[0]?.text;
    return { task: task.status.state, ...(artifact !== undefined ? { artifact } : {}) };
  }
  if (result?.tasks) return { tasks: result.tasks.map((t: any) => t.status.state), nextPageToken: result.nextPageToken };
  return { result: Object.keys(result ?? {}).sort() };
}

type Scenario = { name: string; run: (t: Target) => Promise<unknown> };

const scenarios: Scenario[] = [
  { name: 'SendMessage with text', run: async (t) => call(t.endpoint('echo'), 'SendMessage', { message: message('hello') }) },
  { name: 'GetTask of an unknown id', run: async (t) => call(t.endpoint('echo'), 'GetTask', { id: randomUUID() }) },
  { name: 'CancelTask of an unknown id', run: async (t) => call(t.endpoint('echo'), 'CancelTask', { id: randomUUID() }) },
  { name: 'an unknown method', run: async (t) => call(t.endpoint('echo'), 'NoSuchMethod', {}) },
  { name: 'A2A-Version 2.0', run: async (t) => call(t.endpoint('echo'), 'GetTask', { id: randomUUID() }, '2.0') },
  {
    name: 'GetTask of a sent task',
    run: async (t) => {
      const sent = await call(t.endpoint('echo'), 'SendMessage', { message: message('again') });
      return call(t.endpoint('echo'), 'GetTask', { id: sent.result.task.id });
    },
  },
  {
    name: 'a message to a completed task',
    run: async (t) => {
      const sent = await call(t.endpoint('echo'), 'SendMessage', { message: message('one') });
      const { id, contextId } = sent.result.task;
      return call(t.endpoint('echo'), 'SendMessage', { message: message('two', { taskId: id, contextId }) });
    },
  },
  {
    name: 'CancelTask of a completed task',
    run: async (t) => {
      const sent = await call(t.endpoint('echo'), 'SendMessage', { message: message('one') });
      return call(t.endpoint('echo'), 'CancelTask', { id: sent.result.task.id });
    },
  },
  {
    name: 'SubscribeToTask of a completed task',
    run: async (t) => {
      const sent = await call(t.endpoint('echo'), 'SendMessage', { message: message('one') });
      return call(t.endpoint('echo'), 'SubscribeToTask', { id: sent.result.task.id });
    },
  },
  {
    name: 'ListTasks of a context after two sends',
    run: async (t) => {
      const first = await call(t.endpoint('echo'), 'SendMessage', { message: message('one') });
      await call(t.endpoint('echo'), 'SendMessage', { message: message('two', { contextId: first.result.task.contextId }) });
      return call(t.endpoint('echo'), 'ListTasks', { contextId: first.result.task.contextId });
    },
  },
  {
    name: 'an interrupting agent asks for input',
    run: async (t) => call(t.endpoint('approval'), 'SendMessage', { message: message('email bob about lunch') }),
  },
  {
    name: 'the next message to the waiting task completes it',
    run: async (t) => {
      const waiting = await call(t.endpoint('approval'), 'SendMessage', { message: message('email bob about lunch') });
      const { id, contextId } = waiting.result.task;
      const answer = await call(t.endpoint('approval'), 'SendMessage', {
        message: { ...message(''), parts: [{ data: { decisions: [{ type: 'approve' }] } }], taskId: id, contextId },
      });
      return { state: (normalise(answer) as any).task };
    },
  },
  { name: 'GetExtendedAgentCard without an extended card', run: async (t) => call(t.endpoint('echo'), 'GetExtendedAgentCard', {}) },
  { name: 'a v1.0 method without a version (0.3)', run: async (t) => call(t.endpoint('echo'), 'GetTask', { id: randomUUID() }, null) },
  {
    name: 'a 0.3 request without a version',
    run: async (t) =>
      call(
        t.endpoint('echo'),
        'message/send',
        { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'old' }] } },
        null,
      ),
  },
];

describe('A2A v1.0: agentplane answers as the SDK 1.3.0 reference server', () => {
  for (const scenario of scenarios) {
    test(scenario.name, async () => {
      const [ref, ours] = await Promise.all(
        targets().map(async (t) => {
          const answer = await scenario.run(t);
          return (answer as any)?.jsonrpc ? normalise(answer) : answer;
        }),
      );
      compareWithReference(scenario.name, ref, ours);
    });
  }
});
