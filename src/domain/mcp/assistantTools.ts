// Assistants as tools (what /mcp exposes, as the upstream server does): one tool per
// assistant, named after it, whose input is the graph's input; calling it runs the graph on
// a temporary thread to the end and answers with the final output. No protocol here: the
// MCP framing is in the handler.
import type { Assistant } from '../../../generated/agent-server/types.gen.ts';
import { uuid4 } from '../agent/ids.ts';
import type { AgentService } from '../agent/service.ts';

export interface ToolHost extends AgentService {
  /** The graph's input JSON schema, when it can be derived. */
  inputSchema?(assistant: Assistant): Promise<Record<string, unknown> | undefined>;
}

export interface AssistantTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  assistantId: string;
}

export type ToolResult = { ok: true; output: Record<string, unknown>; text: string } | { ok: false; message: string };

/** MCP tool names are 1–64 characters of [A-Za-z0-9_-]. */
const toolName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'assistant';

const MESSAGES_INPUT = {
  type: 'object' as const,
  properties: {
    messages: {
      type: 'array',
      description: 'Messages for the agent, e.g. [{"role": "user", "content": "hi"}].',
      items: { type: 'object', properties: { role: { type: 'string' }, content: { type: 'string' } }, required: ['role', 'content'] },
    },
  },
  required: ['messages'],
};

export async function listAssistantTools(host: ToolHost): Promise<AssistantTool[]> {
  const assistants = await host.assistants.search({ limit: 1000, offset: 0 });
  const tools: AssistantTool[] = [];
  const taken = new Set<string>();
  for (const assistant of assistants) {
    let name = toolName(assistant.name);
    if (taken.has(name)) name = toolName(`${assistant.name}_${assistant.assistant_id.slice(0, 8)}`);
    taken.add(name);
    const derived = await host.inputSchema?.(assistant);
    const inputSchema =
      derived && derived.type === 'object'
        ? (derived as AssistantTool['inputSchema'])
        : (await host.assistants.hasMessages(assistant))
          ? MESSAGES_INPUT
          : { type: 'object' as const };
    tools.push({
      name,
      description: assistant.description ?? `Runs the ${assistant.graph_id} graph and returns its final output.`,
      inputSchema,
      assistantId: assistant.assistant_id,
    });
  }
  return tools;
}

export async function callAssistantTool(host: ToolHost, tool: AssistantTool, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult> {
  const threadId = uuid4();
  const created = await host.runs.create(threadId, { assistant_id: tool.assistantId, input: args, if_not_exists: 'create' });
  if (!created.ok) return { ok: false, message: created.failure.detail };
  try {
    const run = await host.runs.wait(threadId, created.value.run_id, signal);
    if (!run.ok) return { ok: false, message: run.failure.detail };
    const state = await host.threads.getState(threadId);
    const output = (state.ok ? state.value.values : {}) as Record<string, unknown>;
    if (run.value.status !== 'success') return { ok: false, message: `The run ended with status ${run.value.status}.` };
    return { ok: true, output, text: lastMessageText(output) ?? JSON.stringify(output) };
  } finally {
    await host.threads.delete(threadId);
  }
}

function lastMessageText(values: Record<string, unknown>): string | undefined {
  const messages = values.messages;
  if (!Array.isArray(messages) || messages.length === 0) return undefined;
  const content = (messages.at(-1) as { content?: unknown }).content;
  return typeof content === 'string' ? content : content === undefined ? undefined : JSON.stringify(content);
}
