// The shape of messages inside protocol `values` and `updates` (as upstream sends them): the
// message types by their core names, content as protocol content blocks, tool calls with
// parsed arguments, and only the fields the protocol names. Other state keys pass unchanged.
type Dict = Record<string, unknown>;

const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null && !Array.isArray(value);

const MESSAGE_TYPES = new Set(['human', 'ai', 'system', 'tool', 'function', 'remove']);
const BLOCK_TYPES = new Set([
  'text',
  'reasoning',
  'tool_call',
  'tool_call_chunk',
  'invalid_tool_call',
  'server_tool_call',
  'server_tool_call_chunk',
  'server_tool_call_result',
  'image',
  'audio',
  'video',
  'file',
  'non_standard',
]);

function messageType(type: unknown): string | undefined {
  if (type === 'assistant') return 'ai';
  if (type === 'user') return 'human';
  return typeof type === 'string' ? type : undefined;
}

export const isMessage = (value: unknown): value is Dict => isDict(value) && MESSAGE_TYPES.has(messageType(value.type) ?? '');

function contentBlock(value: unknown): Dict | undefined {
  if (!isDict(value) || typeof value.type !== 'string') return undefined;
  if (BLOCK_TYPES.has(value.type)) {
    // media blocks name their MIME type in camelCase
    if ('mime_type' in value && !('mimeType' in value)) {
      const { mime_type, ...rest } = value;
      return { ...rest, mimeType: mime_type };
    }
    return value;
  }
  if (value.type === 'image_url') {
    const image = value.image_url;
    const url = typeof image === 'string' ? image : isDict(image) && typeof image.url === 'string' ? image.url : undefined;
    return url === undefined ? undefined : { type: 'image', url };
  }
  return { type: 'non_standard', value: { ...value } };
}

function content(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const blocks = value.flatMap((entry) => {
    if (typeof entry === 'string') return [{ type: 'text', text: entry }];
    const block = contentBlock(entry);
    return block ? [block] : [];
  });
  return blocks.length ? blocks : value;
}

function parsedArgs(args: unknown): { valid: boolean; args: unknown } {
  if (args === undefined || args === null) return { valid: true, args: {} };
  if (typeof args !== 'string') return { valid: true, args };
  if (args === '') return { valid: true, args: {} };
  try {
    return { valid: true, args: JSON.parse(args) };
  } catch {
    return { valid: false, args };
  }
}

function toolCalls(raw: unknown[]): { calls: Dict[]; invalid: Dict[] } {
  const calls: Dict[] = [];
  const invalid: Dict[] = [];
  for (const call of raw) {
    if (!isDict(call)) continue;
    const fn = isDict(call.function) ? call.function : undefined;
    const id = typeof call.id === 'string' ? { id: call.id } : {};
    const name = typeof call.name === 'string' ? call.name : typeof fn?.name === 'string' ? fn.name : undefined;
    const rawArgs = 'args' in call ? call.args : fn?.arguments;
    const args = parsedArgs(rawArgs);
    if (name === undefined)
      invalid.push({ ...id, ...(typeof rawArgs === 'string' ? { args: rawArgs } : {}), error: 'Incomplete tool call.', type: 'invalid_tool_call' });
    else if (!args.valid) invalid.push({ ...id, name, args: args.args, error: 'Malformed args.', type: 'invalid_tool_call' });
    else calls.push({ ...id, name, args: args.args, type: 'tool_call' });
  }
  return { calls, invalid };
}

export function stateMessage(value: Dict): Dict {
  const type = messageType(value.type)!;
  const message: Dict = { type, content: content('content' in value ? value.content : '') };
  if (typeof value.id === 'string') message.id = value.id;
  if (typeof value.name === 'string') message.name = value.name;
  if (isDict(value.response_metadata) && Object.keys(value.response_metadata).length > 0) message.response_metadata = value.response_metadata;
  if ((type === 'ai' || type === 'human') && typeof value.example === 'boolean') message.example = value.example;
  if (type === 'tool') {
    if (typeof value.tool_call_id === 'string') message.tool_call_id = value.tool_call_id;
    if (value.status === 'success' || value.status === 'error') message.status = value.status;
    if ('artifact' in value) message.artifact = value.artifact;
  }
  if (type === 'ai') {
    const kwargs = isDict(value.additional_kwargs) ? value.additional_kwargs : {};
    const raw = Array.isArray(value.tool_calls) && value.tool_calls.length ? value.tool_calls : Array.isArray(kwargs.tool_calls) ? kwargs.tool_calls : [];
    const { calls, invalid } = toolCalls(raw);
    const givenInvalid = Array.isArray(value.invalid_tool_calls) && value.invalid_tool_calls.length ? value.invalid_tool_calls : undefined;
    if (calls.length) message.tool_calls = calls;
    if (givenInvalid) message.invalid_tool_calls = givenInvalid;
    else if (invalid.length) message.invalid_tool_calls = invalid;
  }
  return message;
}

/** A `values` or `updates` payload as the protocol sends it (serialised state in, `__interrupt__` left out). */
export function protocolState(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (isMessage(item) ? stateMessage(item) : protocolState(item)));
  if (!isDict(value)) return value;
  const out: Dict = {};
  for (const [key, entry] of Object.entries(value)) {
    if (key === '__interrupt__') continue;
    if (key === 'messages' && Array.isArray(entry)) out[key] = entry.map((item) => (isMessage(item) ? stateMessage(item) : item));
    else out[key] = protocolState(entry);
  }
  return out;
}
