// A chat model server of our own on loopback that speaks the two wire formats real projects'
// model clients use — OpenAI's chat completions (`POST /v1/chat/completions`) and Anthropic's
// messages (`POST /v1/messages`) — streaming (SSE) or not, with tool calls and token usage,
// so a project's ChatOpenAI, ChatAnthropic or initChatModel runs unchanged but for its base
// URL. Its replies are scripted by the conversation, deterministically (the same request gets
// the same reply, ids included, so two servers driving the same project see the same model):
//   - the last user text may carry directives `call <tool> {json args}`, separated by `;`: the
//     model makes the next one not yet answered by a tool result (when the request offers
//     that tool), one tool call per turn;
//   - once they are all answered it says `Done: <the tool results, joined>`;
//   - without a directive it says `You said: <the text>`.
import http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export interface FakeModelServer {
  /** `http://127.0.0.1:<port>`: OpenAI's base URL is `${url}/v1`, Anthropic's is `url`. */
  url: string;
  /** Requests served, by path (`/v1/chat/completions`, `/v1/messages`). */
  calls: Record<string, number>;
  stop(): Promise<void>;
}

/** What the model says next: text, or one tool call. */
type Turn = { text: string; call?: undefined } | { text: ''; call: { name: string; args: Record<string, unknown> } };

const USAGE = { input: 21, output: 9 };
const CREATED = 1_767_225_600;
const DIRECTIVE = /call\s+([\w-]+)\s*(\{.*?\})?\s*(?:;|$)/gs;

/** The next turn from the last user text and the tool results after it. */
export function nextTurn(userText: string, toolResults: string[], tools: string[]): Turn {
  const directives = [...userText.matchAll(DIRECTIVE)]
    .map((m) => ({ name: m[1], args: m[2] ? (JSON.parse(m[2]) as Record<string, unknown>) : {} }))
    .filter((d) => tools.includes(d.name));
  if (directives.length === 0) return { text: `You said: ${userText}` };
  const next = directives[toolResults.length];
  if (next) return { text: '', call: next };
  return { text: `Done: ${toolResults.join(' | ')}` };
}

/** A short id that is the same for the same request (both servers under test send the same). */
const idFor = (prefix: string, body: unknown) => `${prefix}${createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 20)}`;

const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: { type?: string; text?: string; content?: unknown }) => (part.type === 'text' ? (part.text ?? '') : '')).join('')
      : '';

/** Words with their spaces, as a model streams its tokens. */
const words = (text: string) => text.match(/\S+\s*|\s+/g) ?? [];

// ── OpenAI chat completions ──────────────────────────────────────────────────────────────
interface OpenAiBody {
  model: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  tools?: { function: { name: string } }[];
  messages: { role: string; content: unknown; tool_call_id?: string }[];
}

function openAiTurn(body: OpenAiBody): Turn {
  const lastUser = body.messages.findLastIndex((m) => m.role === 'user');
  const results = body.messages.slice(lastUser + 1).filter((m) => m.role === 'tool');
  return nextTurn(
    textOf(body.messages[lastUser]?.content),
    results.map((m) => textOf(m.content)),
    (body.tools ?? []).map((t) => t.function.name),
  );
}

function openAi(body: OpenAiBody, res: http.ServerResponse): void {
  const turn = openAiTurn(body);
  const id = idFor('chatcmpl-', body);
  const callId = idFor('call_', body);
  const usage = { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output };
  const finish = turn.call ? 'tool_calls' : 'stop';
  const base = { id, created: CREATED, model: body.model, system_fingerprint: 'fp_fake' };
  if (!body.stream) {
    const message = turn.call
      ? {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: callId, type: 'function', function: { name: turn.call.name, arguments: JSON.stringify(turn.call.args) } }],
        }
      : { role: 'assistant', content: turn.text };
    return json(res, { ...base, object: 'chat.completion', choices: [{ index: 0, message, logprobs: null, finish_reason: finish }], usage });
  }
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    ...base,
    object: 'chat.completion.chunk',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (turn.call) {
    const args = JSON.stringify(turn.call.args);
    const cut = Math.ceil(args.length / 2);
    events.push(chunk({ tool_calls: [{ index: 0, id: callId, type: 'function', function: { name: turn.call.name, arguments: args.slice(0, cut) } }] }));
    events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }));
  } else for (const word of words(turn.text)) events.push(chunk({ content: word }));
  events.push(chunk({}, finish));
  if (body.stream_options?.include_usage) events.push({ ...base, object: 'chat.completion.chunk', choices: [], usage });
  sse(
    res,
    events.map((data) => ({ data })),
    true,
  );
}

// ── Anthropic messages ────────────────────────────────────────────────────────────────────
interface AnthropicBody {
  model: string;
  stream?: boolean;
  tools?: { name: string }[];
  messages: { role: string; content: string | { type: string; text?: string; content?: unknown }[] }[];
}

function anthropicTurn(body: AnthropicBody): Turn {
  // a tool result comes in a user message of tool_result blocks: the asking user text is the last one with text
  const isResults = (m: AnthropicBody['messages'][number]) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result');
  const lastUser = body.messages.findLastIndex((m) => m.role === 'user' && !isResults(m));
  const results = body.messages
    .slice(lastUser + 1)
    .filter(isResults)
    .flatMap((m) => (m.content as { type: string; content?: unknown }[]).filter((b) => b.type === 'tool_result').map((b) => textOf(b.content)));
  return nextTurn(
    textOf(body.messages[lastUser]?.content),
    results,
    (body.tools ?? []).map((t) => t.name),
  );
}

function anthropic(body: AnthropicBody, res: http.ServerResponse): void {
  const turn = anthropicTurn(body);
  const id = idFor('msg_', body);
  const toolId = idFor('toolu_', body);
  const stop = turn.call ? 'tool_use' : 'end_turn';
  const usage = { input_tokens: USAGE.input, output_tokens: USAGE.output };
  const block = turn.call ? { type: 'tool_use', id: toolId, name: turn.call.name, input: turn.call.args } : { type: 'text', text: turn.text };
  const message = { id, type: 'message', role: 'assistant', model: body.model, stop_reason: stop, stop_sequence: null };
  if (!body.stream) return json(res, { ...message, content: [block], usage });
  const events: { event: string; data: unknown }[] = [
    {
      event: 'message_start',
      data: { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { input_tokens: USAGE.input, output_tokens: 1 } } },
    },
    {
      event: 'content_block_start',
      data: { type: 'content_block_start', index: 0, content_block: turn.call ? { ...block, input: {} } : { type: 'text', text: '' } },
    },
  ];
  const delta = (d: unknown) => events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: d } });
  if (turn.call) {
    const args = JSON.stringify(turn.call.args);
    const cut = Math.ceil(args.length / 2);
    delta({ type: 'input_json_delta', partial_json: args.slice(0, cut) });
    delta({ type: 'input_json_delta', partial_json: args.slice(cut) });
  } else for (const word of words(turn.text)) delta({ type: 'text_delta', text: word });
  events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } });
  events.push({
    event: 'message_delta',
    data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: USAGE.output } },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  sse(res, events, false);
}

// ── the server ────────────────────────────────────────────────────────────────────────────
function json(res: http.ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sse(res: http.ServerResponse, events: { event?: string; data: unknown }[], done: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  if (done) res.write('data: [DONE]\n\n');
  res.end();
}

export async function startFakeModelServer(): Promise<FakeModelServer> {
  const calls: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      const route = (req.url ?? '').split('?')[0];
      calls[route] = (calls[route] ?? 0) + 1;
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return json(res, { error: { type: 'invalid_request_error', message: 'the body is not JSON' } }, 400);
      }
      if (req.method === 'POST' && route === '/v1/chat/completions') return openAi(body as OpenAiBody, res);
      if (req.method === 'POST' && route === '/v1/messages') return anthropic(body as AnthropicBody, res);
      json(res, { error: { type: 'not_found_error', message: `no route ${req.method} ${route}` } }, 404);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
