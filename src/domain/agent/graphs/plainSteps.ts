// What a plain-function graph can show in the step-level stream modes. It runs as one task
// (named after the graph) in one step, so it streams: `tasks` — the task's start and result;
// `checkpoints` — the checkpoint its run commits; `debug` — both wrapped as LangGraph's
// debug chunks; `events` — on_chain_start / on_chain_end of the graph. It calls no model
// and no tool through LangChain, so `tools` stays empty and `messages` carries whole
// messages only (see docs/agent-server.md).
import { randomUUID } from 'node:crypto';
import { nowIso } from '../../clock.ts';
import type { RunContext } from './runContext.ts';
import { checkpointOnWire, type RunStream } from './runStream.ts';

export class PlainSteps {
  /** The graph's one task (the protocol names the node's namespace after it). */
  readonly taskId = randomUUID();
  private readonly name: string;
  private readonly metadata: Record<string, unknown>;
  private input: unknown = null;

  constructor(
    private readonly ctx: RunContext,
    private readonly out: RunStream,
    /** A protocol run's: each checkpoint also goes out as LangGraph's envelope (`{id, parent_id, step, source}`), asked for or not. */
    private readonly envelopes = false,
  ) {
    this.name = ctx.graph.id;
    const { run } = ctx;
    this.metadata = { graph_id: ctx.graph.id, assistant_id: run.assistant_id, thread_id: run.thread_id, run_id: run.run_id };
  }

  /** The run starts: the graph's task is scheduled with the thread's state as input. */
  start(input: unknown, state: Record<string, unknown>): void {
    this.input = input;
    this.event('on_chain_start', { input });
    this.step('task', { id: this.taskId, name: this.name, input: state, triggers: ['__start__'], interrupts: [] });
  }

  /** The graph returned its update. */
  result(update: Record<string, unknown>): void {
    this.step('task_result', { id: this.taskId, name: this.name, result: update, interrupts: [] });
  }

  /** A checkpoint the run commits: its input (`source: input`) or the graph's result (`loop`). */
  checkpoint(values: Record<string, unknown>, checkpointId: string, parentId: string | null, metadata: { source: string; step: number }): void {
    if (this.envelopes)
      this.out.chunk([], 'checkpoints', { id: checkpointId, ...(parentId ? { parent_id: parentId } : {}), step: metadata.step, source: metadata.source });
    // the checkpoint on the wire copies the thread's whole values: made only for a run that streams it
    if (!this.out.has('checkpoints') && !this.out.has('debug')) return;
    const { run } = this.ctx;
    const config = (id: string) => ({ configurable: { thread_id: run.thread_id, checkpoint_ns: '', checkpoint_id: id } });
    const checkpoint = checkpointOnWire({
      config: config(checkpointId),
      parentConfig: parentId ? config(parentId) : null,
      values,
      metadata: { ...metadata, parents: {}, ...this.metadata },
      next: [],
      tasks: [],
    });
    if (this.out.has('checkpoints')) this.ctx.publish('checkpoints', checkpoint);
    if (this.out.has('debug')) this.ctx.publish('debug', { type: 'checkpoint', timestamp: nowIso(), step: metadata.step, payload: checkpoint });
  }

  end(output: Record<string, unknown>): void {
    this.event('on_chain_end', { input: this.input, output });
  }

  private step(type: 'task' | 'task_result', payload: Record<string, unknown>): void {
    if (this.out.has('tasks')) this.ctx.publish('tasks', payload);
    if (this.out.has('debug')) this.ctx.publish('debug', { type, timestamp: nowIso(), step: 1, payload });
  }

  private event(event: string, data: Record<string, unknown>): void {
    this.out.event({ event, name: this.name, run_id: this.ctx.run.run_id, tags: [], metadata: this.metadata, parent_ids: [], data });
  }
}
