// Talking to the agentplane that served this page: the control plane with plain fetch and
// the API key, the agent server through the official LangGraph SDK client.
import { Client } from '@langchain/langgraph-sdk/client';
import { operations } from 'virtual:spec';

const KEY = 'agentplane.apiKey';

/** The API key lives in sessionStorage: entered once, gone when the browser session ends. */
export const apiKey = {
  get: (): string => sessionStorage.getItem(KEY) ?? '',
  set: (value: string) => (value ? sessionStorage.setItem(KEY, value) : sessionStorage.removeItem(KEY)),
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(describe(status, body));
  }
}

function describe(status: number, body: unknown): string {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return `${status}: ${detail}`;
  if (Array.isArray(detail)) return `${status}: ${detail.map((d) => `${(d.loc ?? []).join('.')}: ${d.msg}`).join('; ')}`;
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return `${status}: ${message}`;
  return `HTTP ${status}`;
}

export async function call<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  const headers: Record<string, string> = { ...extraHeaders };
  const key = apiKey.get();
  if (key) headers['X-Api-Key'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = text;
  }
  if (!res.ok) throw new ApiError(res.status, parsed);
  return parsed as T;
}

/** The SDK client for the agent server; the key goes along when one was entered. */
export function agent(): Client {
  const key = apiKey.get();
  return new Client({ apiUrl: location.origin, defaultHeaders: key ? { 'X-Api-Key': key } : {}, callerOptions: { maxRetries: 0 } });
}

/** Whether the spec this dashboard was built with has the operation (`GET /path/{x}`). */
export const hasOperation = (operation: string) => operations.includes(operation);

/** The status of an error from either client (ApiError or the SDK's HTTPError). */
export const statusOf = (error: unknown): number | undefined => (error as { status?: number } | null)?.status;

/** An operation this server does not have (yet): the route is unknown to it. */
export const isMissingOperation = (error: unknown) => [404, 405, 501].includes(statusOf(error) ?? 0);
