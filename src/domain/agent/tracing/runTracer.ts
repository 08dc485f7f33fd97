// A run's trace from the LangChain callbacks every graph run already produces, written as the
// OpenTelemetry GenAI semantic conventions name things: one `invoke_agent <graph>` span for
// the run, one span per node (its superstep, bounded input and output), one `chat <model>`
// span per model call (messages with their tool calls, token usage when the model reports it)
// and one `execute_tool <tool>` span per tool call, each with its error. Chains that are not
// nodes (the graph itself, a node's inner runnables) add no span: their children hang under
// the nearest span above them. Each span also says what it is to LangSmith's OTLP ingest
// (`langsmith.span.kind`). What the spans carry of the conversation leaves the process only
// when content capture is on (see runSpans.ts); the trace the run keeps has it all.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import type { ChainValues } from '@langchain/core/utils/types';
import { copyInto } from '../../copyWith.ts';
import { boundedJson } from './boundedJson.ts';
import { cut, genAiMessage, messagesJson } from './genAiMessages.ts';
import { jsonLength } from './jsonLength.ts';
import { RUN_ID_ATTRIBUTE, runSpans, type TraceSpan } from './runSpans.ts';

/** The run a tracer traces. */
export interface TracedRun {
  runId: string;
  threadId: string;
  graphId: string;
  assistantId: string;
}

type Kind = TraceSpan['kind'];

export class RunTracer extends BaseCallbackHandler {
  override name = 'agentplane_run_tracer';
  override awaitHandlers = true;
  /**
   * Chat models stream their answer when a handler of the run prefers it. Upstream's server
   * runs every graph under stream events, whose handler does: a model's message is then the
   * streamed one (`tool_call_chunks`, `usage_metadata`, `tool_calls[].index`, content blocks as
   * streamed), whatever the run asks to stream. Every run has this handler, so runs here
   * call models the same way (a handler of its own would be one more on every callback).
   */
  lc_prefer_streaming = true;
  private readonly root: Span;
  private readonly runId: string;
  /** Each callback run id → the span its children go under (its own, or its parent's). */
  private readonly spans = new Map<string, { span: Span; own: boolean }>();
  /** The interrupt a node paused the run with (the run itself then ends without an error). */
  private pausedBy: unknown;
  /** Model and tool calls started and not ended: while one is, the run waits on the world outside. */
  private readonly calls = new Set<string>();
  /** When a callback last came (performance.now()). */
  private lastCallback = performance.now();

  constructor(run: TracedRun) {
    super();
    this.runId = run.runId;
    this.root = this.start(`invoke_agent ${run.graphId}`, 'run', undefined, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': run.graphId,
      'gen_ai.agent.id': run.assistantId,
      'gen_ai.conversation.id': run.threadId,
      'langsmith.span.kind': 'chain',
      // LangSmith groups the runs of a thread by this metadata key
      'langsmith.metadata.thread_id': run.threadId,
      'langgraph.run_id': run.runId,
      'langgraph.thread_id': run.threadId,
      'langgraph.graph_id': run.graphId,
      'langgraph.assistant_id': run.assistantId,
    });
  }

  private start(name: string, kind: Kind, parentRunId: string | undefined, attributes: Attributes, spanKind = SpanKind.INTERNAL): Span {
    // the run's own span has no parent here: a trace per run
    const parent = (parentRunId && this.spans.get(parentRunId)?.span) || this.root;
    const context = parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    return runSpans()
      .provider.getTracer('agentplane')
      .startSpan(name, { kind: spanKind, attributes: spanAttributes(this.runId, kind, attributes) }, context);
  }

  private open(runId: string, name: string, kind: Kind, parentRunId: string | undefined, attributes: Attributes, spanKind?: SpanKind): void {
    this.lastCallback = performance.now();
    if (kind === 'model' || kind === 'tool') this.calls.add(runId);
    this.spans.set(runId, { span: this.start(name, kind, parentRunId, attributes, spanKind), own: true });
  }

  /**
   * Whether the run did anything its callbacks tell of since `since` (performance.now()), or
   * waits on a model or tool call in flight (a model may think for minutes and send nothing):
   * the run watchdog's progress (runWorkerPool.ts).
   */
  progressedSince(since: number): boolean {
    return this.calls.size > 0 || this.lastCallback > since;
  }

  /** `attributes` is called only for a span of the run's own: writing a chain's outputs walks them. */
  private end(runId: string, attributes: () => Attributes = () => ({}), error?: unknown): void {
    const entry = this.spans.get(runId);
    this.spans.delete(runId);
    this.calls.delete(runId);
    this.lastCallback = performance.now();
    if (!entry?.own) return;
    entry.span.setAttributes(defined(attributes()));
    if (isInterrupt(error)) interrupted(entry.span, (this.pausedBy = error));
    else if (error !== undefined) failed(entry.span, error);
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
        'langsmith.span.kind': 'chain',
        'langgraph.node': node,
        'langgraph.step': metadata?.langgraph_step as number,
        'input.size': jsonLength(inputs),
        'input.value': boundedJson(inputs),
      });
    } else {
      // not a node: its children go under the span above it
      this.lastCallback = performance.now();
      const above = (parentRunId && this.spans.get(parentRunId)?.span) || this.root;
      this.spans.set(runId, { span: above, own: false });
    }
  }

  override handleChainEnd(outputs: ChainValues, runId: string): void {
    this.end(runId, () => ({ 'output.size': jsonLength(outputs), 'output.value': boundedJson(outputs) }));
  }

  override handleChainError(err: unknown, runId: string): void {
    this.end(runId, undefined, err);
  }

  override handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extra?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    const model = modelName(llm, extra, metadata);
    this.open(
      runId,
      `chat ${model}`,
      'model',
      parentRunId,
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': providerName(llm, metadata),
        'gen_ai.request.model': model,
        'gen_ai.input.messages': messagesJson(messages.flat().map(genAiMessage)),
        'langsmith.span.kind': 'llm',
      },
      SpanKind.CLIENT,
    );
  }

  override handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extra?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    const model = modelName(llm, extra, metadata);
    const asMessages = prompts.map((prompt) => ({ role: 'user', parts: [{ type: 'text' as const, content: cut(prompt) }] }));
    this.open(
      runId,
      `text_completion ${model}`,
      'model',
      parentRunId,
      {
        'gen_ai.operation.name': 'text_completion',
        'gen_ai.provider.name': providerName(llm, metadata),
        'gen_ai.request.model': model,
        'gen_ai.input.messages': messagesJson(asMessages),
        'langsmith.span.kind': 'llm',
      },
      SpanKind.CLIENT,
    );
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    this.end(runId, () => modelOutput(output));
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
    const name = runName ?? className(tool) ?? 'tool';
    this.open(runId, `execute_tool ${name}`, 'tool', parentRunId, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': toolCallId,
      'gen_ai.tool.call.arguments': cut(String(input)),
      'langsmith.span.kind': 'tool',
    });
  }

  override handleToolEnd(output: unknown, runId: string): void {
    const content = (output as { content?: unknown } | undefined)?.content ?? output;
    this.end(runId, () => ({ 'gen_ai.tool.call.result': cut(typeof content === 'string' ? content : JSON.stringify(content ?? null)) }));
  }

  override handleToolError(err: unknown, runId: string): void {
    this.end(runId, undefined, err);
  }

  /** Ends the run's span (and any left open) and hands back the run's trace. */
  finish(error?: unknown): TraceSpan[] {
    for (const runId of [...this.spans.keys()]) this.end(runId);
    if (error !== undefined && !isInterrupt(error)) failed(this.root, error);
    else if (isInterrupt(error ?? this.pausedBy)) interrupted(this.root, error ?? this.pausedBy);
    this.root.end();
    return runSpans().collector.take(this.runId);
  }
}

/** The model's answer: its messages (tool calls as parts), finish reasons, token usage. */
function modelOutput(output: LLMResult): Attributes {
  type Generation = {
    text?: string;
    generationInfo?: { finish_reason?: string };
    message?: BaseMessage & { usage_metadata?: Record<string, number>; response_metadata?: Record<string, unknown> };
  };
  const generations = (output.generations?.flat() ?? []) as Generation[];
  const finishReason = (g: Generation) =>
    String(
      g.generationInfo?.finish_reason ??
        g.message?.response_metadata?.finish_reason ??
        ((g.message as { tool_calls?: unknown[] })?.tool_calls?.length ? 'tool_call' : 'stop'),
    );
  const messages = generations.map((g) => ({
    ...(g.message ? genAiMessage(g.message) : { role: 'assistant', parts: [{ type: 'text' as const, content: cut(g.text ?? '') }] }),
    finish_reason: finishReason(g),
  }));
  const first = generations[0]?.message;
  const usage = first?.usage_metadata;
  const reported = output.llmOutput?.tokenUsage as Record<string, number> | undefined;
  const responseModel = first?.response_metadata?.model_name ?? first?.response_metadata?.model;
  return {
    'gen_ai.output.messages': messagesJson(messages),
    'gen_ai.response.finish_reasons': messages.map((m) => m.finish_reason),
    'gen_ai.response.model': typeof responseModel === 'string' ? responseModel : undefined,
    'gen_ai.usage.input_tokens': usage?.input_tokens ?? reported?.promptTokens,
    'gen_ai.usage.output_tokens': usage?.output_tokens ?? reported?.completionTokens,
  };
}

function failed(span: Span, error: unknown): void {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('error.type', error instanceof Error ? error.name : 'Error');
  // an exception event: exception.type, exception.message and exception.stacktrace
  if (error instanceof Error) span.recordException(error);
  else span.recordException({ name: 'Error', message });
}

/** A node that interrupts "throws" GraphInterrupt: a pause, not an error; the span says so. */
function interrupted(span: Span, error: unknown): void {
  const interrupts = (error as { interrupts?: Array<{ value?: unknown }> }).interrupts ?? [];
  span.setAttributes({ 'langgraph.interrupted': true, 'langgraph.interrupt.value': boundedJson(interrupts.map((i) => i.value)) });
  span.addEvent('langgraph.interrupt', { 'langgraph.interrupt.count': interrupts.length });
}

function isInterrupt(err: unknown): boolean {
  return err instanceof Error && (err.name === 'GraphInterrupt' || err.name === 'NodeInterrupt');
}

const className = (serialized: Serialized): string | undefined => (serialized?.id as string[] | undefined)?.at(-1);

const firstString = (...values: unknown[]): string | undefined => values.find((v): v is string => typeof v === 'string' && v !== '');

/** The model a call asked for, as LangChain reports it: LangSmith's metadata, the invocation parameters, the constructor's fields; the class name last. */
function modelName(llm: Serialized, extra?: Record<string, unknown>, metadata?: Record<string, unknown>): string {
  const params = (extra?.invocation_params ?? {}) as Record<string, unknown>;
  const kwargs = ((llm as { kwargs?: Record<string, unknown> }).kwargs ?? {}) as Record<string, unknown>;
  return (
    firstString(metadata?.ls_model_name, params.model, params.model_name, params.modelName, kwargs.model, kwargs.model_name, kwargs.modelName) ??
    className(llm) ??
    'model'
  );
}

/** The provider LangChain names (`ls_provider`: openai, anthropic, …). */
function providerName(llm: Serialized, metadata?: Record<string, unknown>): string {
  return firstString(metadata?.ls_provider) ?? className(llm)?.replace(/^Chat/, '').toLowerCase() ?? 'langchain';
}

/**
 * A span's attributes at its start: the run's id, its kind, then `attributes` without the
 * undefined ones. Built key by key: a literal with a computed key and a spread costs V8 runtime
 * calls while the tracer is not optimised (issue 86, a run's worker CPU).
 */
export function spanAttributes(runId: string, kind: Kind, attributes: Attributes): Attributes {
  const all: Attributes = {};
  all[RUN_ID_ATTRIBUTE] = runId;
  all['agentplane.kind'] = kind;
  copyInto(all, attributes, isDefined);
  return all;
}

const isDefined = (_key: string, value: unknown) => value !== undefined;

/** Attributes without the undefined ones (OpenTelemetry drops them with a warning). */
function defined(attributes: Attributes): Attributes {
  const kept: Attributes = {};
  copyInto(kept, attributes, isDefined);
  return kept;
}
