// A run's trace from the LangChain callbacks every graph run already produces: one span for
// the run, one per node (its superstep, input/output sizes), one per model call (messages,
// token usage when the model reports it) and one per tool call, each with its error. Chains
// that are not nodes (the graph itself, a node's inner runnables) add no span: their
// children hang under the nearest span above them.
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import type { ChainValues } from '@langchain/core/utils/types';
import { jsonLength } from './jsonLength.ts';
import { RUN_ID_ATTRIBUTE, runSpans, type TraceSpan } from './runSpans.ts';

const truncated = (text: string, max = 4000) => (text.length > max ? `${text.slice(0, max)}…` : text);

export class RunTracer extends BaseCallbackHandler {
  override name = 'agentplane_run_tracer';
  override awaitHandlers = true;
  private readonly root: Span;
  /** Each callback run id → the span its children go under (its own, or its parent's). */
  private readonly spans = new Map<string, { span: Span; own: boolean }>();

  constructor(
    private readonly runId: string,
    attributes: Record<string, string>,
  ) {
    super();
    this.root = this.start('run', 'run', undefined, attributes);
  }

  private start(name: string, kind: string, parentRunId: string | undefined, attributes: Record<string, unknown> = {}): Span {
    // the run's own span has no parent here: a trace per run
    const parent = (parentRunId && this.spans.get(parentRunId)?.span) || this.root;
    const context = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    const span = runSpans()
      .provider.getTracer('agentplane')
      .startSpan(name, { attributes: { [RUN_ID_ATTRIBUTE]: this.runId, 'agentplane.kind': kind } }, context);
    for (const [key, value] of Object.entries(attributes)) if (value !== undefined) span.setAttribute(key, value as string | number | boolean);
    return span;
  }

  private open(runId: string, name: string, kind: string, parentRunId: string | undefined, attributes: Record<string, unknown>): void {
    this.spans.set(runId, { span: this.start(name, kind, parentRunId, attributes), own: true });
  }

  /** `attributes` is called only for a span of the run's own: sizing a chain's outputs walks them. */
  private end(runId: string, attributes: () => Record<string, unknown> = () => ({}), error?: unknown): void {
    const entry = this.spans.get(runId);
    this.spans.delete(runId);
    if (!entry?.own) return;
    for (const [key, value] of Object.entries(attributes())) if (value !== undefined) entry.span.setAttribute(key, value as string | number | boolean);
    if (error !== undefined) failed(entry.span, error);
    entry.span.end();
  }

  override handleChainStart(
    _chain: Serialized,
    inputs: ChainValues,
    runId: string,
    parentRunId?: string,
    tags?: string[],
    metadata?: Record<string, unknown>,
    _runType?: string,
    runName?: string,
  ): void {
    const node = metadata?.langgraph_node;
    // LangGraph's own bookkeeping (`__start__`, channel writes) is hidden, as LangSmith hides it
    if (typeof node === 'string' && node === runName && !tags?.includes('langsmith:hidden')) {
      this.open(runId, node, 'node', parentRunId, {
        'langgraph.node': node,
        'langgraph.step': metadata?.langgraph_step as number,
        'input.size': jsonLength(inputs),
      });
    } else {
      // not a node: its children go under the span above it
      const above = (parentRunId && this.spans.get(parentRunId)?.span) || this.root;
      this.spans.set(runId, { span: above, own: false });
    }
  }

  override handleChainEnd(outputs: ChainValues, runId: string): void {
    this.end(runId, () => ({ 'output.size': jsonLength(outputs) }));
  }

  override handleChainError(err: unknown, runId: string): void {
    // a node that interrupts "throws" GraphInterrupt: that is a pause, not an error
    this.end(runId, undefined, isInterrupt(err) ? undefined : err);
  }

  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    _extra?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    const flat = messages.flat().map((m) => ({ role: m.getType(), content: m.content }));
    this.open(runId, runName ?? modelName(llm), 'model', parentRunId, {
      'gen_ai.request.model': (metadata?.ls_model_name as string) ?? modelName(llm),
      'gen_ai.prompt.messages': truncated(JSON.stringify(flat)),
      'gen_ai.prompt.count': flat.length,
    });
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    _extra?: Record<string, unknown>,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    this.open(runId, runName ?? modelName(llm), 'model', parentRunId, {
      'gen_ai.prompt.count': prompts.length,
      'gen_ai.prompt.messages': truncated(JSON.stringify(prompts)),
    });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const generation = output.generations?.[0]?.[0] as { text?: string; message?: { usage_metadata?: Record<string, number> } } | undefined;
    const usage = generation?.message?.usage_metadata;
    const reported = output.llmOutput?.tokenUsage as Record<string, number> | undefined;
    this.end(runId, () => ({
      'gen_ai.completion': generation?.text !== undefined ? truncated(generation.text) : undefined,
      'gen_ai.usage.input_tokens': usage?.input_tokens ?? reported?.promptTokens,
      'gen_ai.usage.output_tokens': usage?.output_tokens ?? reported?.completionTokens,
    }));
  }

  override handleLLMError(err: unknown, runId: string): void {
    this.end(runId, undefined, err);
  }

  override handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): void {
    this.open(runId, runName ?? modelName(tool), 'tool', parentRunId, { 'tool.input': truncated(String(input)), 'tool.call_id': toolCallId });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    const content = (output as { content?: unknown } | undefined)?.content ?? output;
    this.end(runId, () => ({ 'tool.output': truncated(typeof content === 'string' ? content : JSON.stringify(content ?? null)) }));
  }

  override handleToolError(err: unknown, runId: string): void {
    this.end(runId, undefined, err);
  }

  /** Ends the run's span (and any left open) and hands back the run's trace. */
  finish(error?: unknown): TraceSpan[] {
    for (const runId of [...this.spans.keys()]) this.end(runId);
    if (error !== undefined && !isInterrupt(error)) failed(this.root, error);
    this.root.end();
    return runSpans().collector.take(this.runId);
  }
}

function failed(span: Span, error: unknown): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  if (error instanceof Error) span.recordException(error);
}

function isInterrupt(err: unknown): boolean {
  return err instanceof Error && (err.name === 'GraphInterrupt' || err.name === 'NodeInterrupt');
}

function modelName(serialized: Serialized): string {
  return (serialized?.id as string[] | undefined)?.at(-1) ?? 'model';
}
