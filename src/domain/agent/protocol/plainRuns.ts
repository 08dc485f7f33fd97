// Protocol events of plain-function graphs, which have no protocol stream of their own: what
// their run publishes for a run stream becomes the protocol's, shaped as LangGraph's
// `streamEvents` v3 shapes a one-node graph's — `values`, `updates` (one per node, with
// `node`), `custom`, `tasks` (the task's start and result), `checkpoints` (the envelope before
// each `values`) at the root, and the node's new messages in its own namespace, whole, as
// content-block events (messages.ts of LangGraph's protocol handler does the same for a
// node's returned messages). Nothing else a plain run publishes reaches its log: every entry
// of a protocol run's log is an event of the thread, so none is hidden behind a sequence
// number (issue 90).
import { isCheckpointEnvelope } from '@langchain/langgraph/stream';
import type { MessageDict } from '../messages/messages.ts';
import type { RunRecord } from '../records.ts';
import { PROTOCOL_RUN_KEY, type Namespace } from './events.ts';
import type { RunProtocolSource } from './runProtocolSource.ts';

export const isProtocolRun = (run: Pick<RunRecord, 'kwargs'>): boolean => run.kwargs[PROTOCOL_RUN_KEY] === true;

type Dict = Record<string, unknown>;
const isDict = (value: unknown): value is Dict => typeof value === 'object' && value !== null && !Array.isArray(value);

export class PlainProtocolEvents {
  constructor(private readonly source: RunProtocolSource) {}

  private take(method: string, data: unknown, namespace: Namespace = []): void {
    this.source.take({ method, params: { namespace, data } });
  }

  /** A run stream's publish that publishes protocol events instead. */
  readonly publish = (event: string, data: unknown): void => {
    switch (event) {
      case 'values':
      case 'tasks':
        this.take(event, data);
        return;
      case 'checkpoints':
        if (isCheckpointEnvelope(data)) this.take(event, data);
        return;
      case 'custom':
        // as LangGraph's: a payload that names itself is the event's data, any other is wrapped
        this.take(event, isDict(data) && 'name' in data ? data : { payload: data });
        return;
      case 'updates':
        if (isDict(data)) for (const [node, values] of Object.entries(data)) this.take(event, { node, values });
    }
  };

  /**
   * The node's new messages (a tool's excepted, as LangGraph's): its namespace starts, and
   * each message goes out whole as content-block events; what it answers ends the namespace
   * (after the task's result). Nothing when there is no such message.
   */
  nodeMessages(node: string, taskId: string, messages: MessageDict[], runId: string): () => void {
    const sent = messages.filter((m) => m.type !== 'tool');
    if (sent.length === 0) return () => {};
    const namespace = [`${node}:${taskId}`];
    this.take('lifecycle', { event: 'started', graph_name: node }, namespace);
    for (const message of sent) for (const data of contentBlockEvents(message)) this.take('messages', { ...data, run_id: runId }, namespace);
    return () => this.take('lifecycle', { event: 'completed', graph_name: node }, namespace);
  }
}

/** A whole message as the protocol's content-block events (start, each block's start, text, finish, then the message's finish). */
function contentBlockEvents(message: MessageDict): Dict[] {
  const role = ['human', 'system'].includes(message.type) ? message.type : 'ai';
  const blocks: Dict[] = Array.isArray(message.content)
    ? message.content.filter(isDict)
    : typeof message.content === 'string' && message.content.length > 0
      ? [{ type: 'text', text: message.content }]
      : [];
  const events: Dict[] = [{ event: 'message-start', ...(message.id !== undefined ? { id: message.id } : {}), ...(role !== 'ai' ? { role } : {}) }];
  blocks.forEach((block, offset) => {
    const index = typeof block.index === 'number' ? block.index : offset;
    const text = block.type === 'text' && typeof block.text === 'string' ? block.text : undefined;
    events.push({ event: 'content-block-start', index, content: text === undefined ? block : { type: 'text', text: '' } });
    if (text) events.push({ event: 'content-block-delta', index, delta: { type: 'text-delta', text } });
    events.push({ event: 'content-block-finish', index, content: block });
  });
  events.push({
    event: 'message-finish',
    ...(isDict(message.usage_metadata) ? { usage: message.usage_metadata } : {}),
    ...(isDict(message.response_metadata) ? { responseMetadata: message.response_metadata } : {}),
  });
  return events;
}
