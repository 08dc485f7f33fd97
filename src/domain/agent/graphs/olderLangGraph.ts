// Driving a graph of a LangGraph.js release older than the stream options agentplane asks for
// (langGraphRelease.ts says which release has what). Before 0.2.20 a lone stream mode's
// chunks come bare and there is no `messages` mode; before 0.2.9 there is no `subgraphs`
// option. Asked for what it lacks, such a graph streams chunks the runner cannot read ("chunk
// is not iterable") or nothing at all. So an older graph is asked for two modes at least (its
// chunks then come as `[mode, chunk]`, and the runner drops the modes not requested), never for
// subgraphs, and its `messages` come from the run's callbacks, as LangGraph's own
// StreamMessagesHandler makes them in later releases: each chunk a chat model streams, else
// the message it returns, and the messages a node's runnables return that were not in its input.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { LLMResult } from '@langchain/core/outputs';
import type { StreamSupport } from '../../../shared/langGraphRelease.ts';

/** A message of any @langchain/core release (a project's is not agentplane's: read by its shape). */
interface AnyMessage {
  id?: string;
  _getType(): string;
  lc_kwargs?: Record<string, unknown>;
  tool_call_id?: string;
}

const isMessage = (value: unknown): value is AnyMessage => !!value && typeof (value as AnyMessage)._getType === 'function';

/** The stream modes to ask an older graph for: at least two, so that every chunk says its mode. */
export function modesFor(support: StreamSupport, modes: string[]): string[] {
  const asked = support.messagesMode ? modes : modes.filter((m) => m !== 'messages');
  if (support.tuplesForOneMode) return asked;
  for (const extra of ['values', 'updates']) if (asked.length < 2 && !asked.includes(extra)) asked.push(extra);
  return asked;
}

/** The `messages` stream mode for a release without it, from the run's callbacks (root graph only: such a release streams no subgraphs). */
export class OlderMessagesHandler extends BaseCallbackHandler {
  override name = 'agentplane_older_messages';
  /** Chat models stream when a handler prefers it, as they do for LangGraph's own. */
  lc_prefer_streaming = true;
  private readonly metadatas = new Map<string, Record<string, unknown>>();
  private readonly streamed = new Set<string>();
  private readonly seen = new Set<string>();

  constructor(private readonly emit: (message: unknown, metadata: Record<string, unknown>) => void) {
    super();
  }

  private send(metadata: Record<string, unknown>, message: AnyMessage, runId: string, dedupe: boolean): void {
    if (dedupe && message.id !== undefined && this.seen.has(message.id)) return;
    if (message.id == null) {
      // a message without an id is named after the run that made it, as LangGraph names it
      message.id = message._getType() === 'tool' && message.tool_call_id ? `run-${runId}-tool-${message.tool_call_id}` : `run-${runId}`;
      if (message.lc_kwargs) message.lc_kwargs.id = message.id;
    }
    this.seen.add(message.id);
    this.emit(message, metadata);
  }

  override handleChatModelStart(
    _llm: unknown,
    _messages: unknown,
    runId: string,
    _parentRunId?: string,
    _extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
    name?: string,
  ): void {
    if (metadata && !tags?.includes('langsmith:nostream') && !tags?.includes('nostream')) this.metadatas.set(runId, { tags, name, ...metadata });
  }

  override handleLLMNewToken(_token: string, _idx: unknown, runId: string, _parentRunId?: string, _tags?: string[], fields?: { chunk?: unknown }): void {
    this.streamed.add(runId);
    const metadata = this.metadatas.get(runId);
    const message = (fields?.chunk as { message?: unknown } | undefined)?.message;
    if (metadata && isMessage(message)) this.send(metadata, message, runId, false);
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const metadata = this.metadatas.get(runId);
    this.metadatas.delete(runId);
    const message = (output.generations?.[0]?.[0] as { message?: unknown } | undefined)?.message;
    if (metadata && !this.streamed.has(runId) && isMessage(message)) this.send(metadata, message, runId, true);
    this.streamed.delete(runId);
  }

  override handleLLMError(_err: unknown, runId: string): void {
    this.metadatas.delete(runId);
    this.streamed.delete(runId);
  }

  override handleChainStart(
    _chain: unknown,
    inputs: Record<string, unknown>,
    runId: string,
    _parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
  ): void {
    // a node of these releases ends with no output of its own (its channel writes'): what it
    // returns is the output of the runnables in it, each read here
    if (typeof metadata?.langgraph_node !== 'string' || tags?.includes('langsmith:hidden')) return;
    this.metadatas.set(runId, { tags, name: metadata.langgraph_node, ...metadata });
    // what a node was given is not news when it returns it
    for (const value of typeof inputs === 'object' && inputs ? Object.values(inputs) : [])
      for (const item of Array.isArray(value) ? value : [value]) if (isMessage(item) && item.id !== undefined) this.seen.add(item.id);
  }

  override handleChainEnd(outputs: unknown, runId: string): void {
    const metadata = this.metadatas.get(runId);
    this.metadatas.delete(runId);
    if (!metadata || !outputs || typeof outputs !== 'object') return;
    const values = isMessage(outputs) ? [outputs] : Array.isArray(outputs) ? outputs : Object.values(outputs);
    for (const value of values) for (const item of Array.isArray(value) ? value : [value]) if (isMessage(item)) this.send(metadata, item, runId, true);
  }

  override handleChainError(_err: unknown, runId: string): void {
    this.metadatas.delete(runId);
  }
}
