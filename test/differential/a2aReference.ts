// The @a2a-js/sdk 1.3.0 reference agents the A2A v1.0 differential suites compare agentplane
// with: the SDK's own DefaultRequestHandler over an echo executor and an interrupting one (asks
// for input first, as agentplane's approval example graph does), with in-memory stores.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { Role, TaskState, type AgentCard, type AgentInterface, type Message, type Task } from '@a2a-js/sdk-v1';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk-v1/server';

const textOf = (message: Message) => message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
const agentText = (contextId: string, taskId: string, value: string): Message => ({
  messageId: randomUUID(),
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [{ content: { $case: 'text', value }, filename: '', mediaType: '', metadata: undefined }],
  extensions: [],
  referenceTaskIds: [],
  metadata: undefined,
});

/** Echoes the text back as an artifact, or (interrupting) asks for input first, as the approval graph does. */
export class ReferenceExecutor implements AgentExecutor {
  /** The context of each task it ran, to publish a task's cancellation (the SDK asks the executor to). */
  private readonly contexts = new Map<string, string>();
  constructor(private readonly interrupting: boolean) {}
  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const contextId = this.contexts.get(taskId) ?? '';
    const status = { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() };
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status, metadata: undefined }));
    bus.finished();
  };
  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = ctx;
    this.contexts.set(taskId, contextId);
    const status = (state: TaskState, message?: Message) => ({ state, message, timestamp: new Date().toISOString() });
    if (!ctx.task) {
      const task: Task = {
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      };
      bus.publish(AgentEvent.task(task));
    }
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
    if (this.interrupting && !ctx.task) {
      const ask = agentText(contextId, taskId, 'Send this email?');
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_INPUT_REQUIRED, ask), metadata: undefined }));
      bus.finished();
      return;
    }
    const reply = this.interrupting ? 'Sent.' : `echo: ${textOf(ctx.userMessage)}`;
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: randomUUID(),
          name: 'reply',
          description: '',
          parts: agentText(contextId, taskId, reply).parts,
          extensions: [],
          metadata: undefined,
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_COMPLETED, agentText(contextId, taskId, reply)), metadata: undefined }),
    );
    bus.finished();
  }
}

export interface ReferenceOptions {
  /** The interfaces the card lists, asked for per card request (the ports are known only once listening). */
  interfaces: () => AgentInterface[];
  interrupting: boolean;
  /** Push-notification configs are kept (in memory; nothing is delivered), and the card says so. */
  push?: boolean;
}

/** The SDK's request handler of one reference agent, its card naming the interfaces it is served on. */
export function referenceHandler(name: string, options: ReferenceOptions): DefaultRequestHandler {
  const card = (): AgentCard =>
    ({
      name,
      description: 'reference',
      supportedInterfaces: options.interfaces(),
      version: '1.0.0',
      capabilities: { streaming: true, pushNotifications: !!options.push, extensions: [], extendedAgentCard: false },
      securitySchemes: {},
      securityRequirements: [],
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [],
      signatures: [],
    }) as unknown as AgentCard;
  const handler = options.push
    ? new DefaultRequestHandler(card(), new InMemoryTaskStore(), new ReferenceExecutor(options.interrupting), undefined, new InMemoryPushNotificationStore(), {
        send: async () => {},
      })
    : new DefaultRequestHandler(card(), new InMemoryTaskStore(), new ReferenceExecutor(options.interrupting));
  // the card names the URLs once the ports are known
  handler.getAgentCard = async () => card();
  return handler;
}

const differences: { scenario: string; reference: unknown; agentplane: unknown; reason: string }[] = JSON.parse(
  fs.readFileSync(new URL('./a2a-v1-deliberate-differences.json', import.meta.url), 'utf8'),
).differences;

/**
 * Asserts agentplane's normalised answer equals the reference's, or, for a scenario listed in
 * a2a-v1-deliberate-differences.json, that both still answer as listed.
 * A2A_DIFF_PRINT=1 prints both answers.
 */
export function compareWithReference(scenario: string, reference: unknown, agentplane: unknown): void {
  if (process.env.A2A_DIFF_PRINT) console.log(JSON.stringify({ scenario, reference, agentplane }));
  const listed = differences.find((d) => d.scenario === scenario);
  if (listed) {
    assert.deepEqual(
      { reference, agentplane },
      { reference: listed.reference, agentplane: listed.agentplane },
      `listed difference no longer as described: ${listed.reason}`,
    );
    return;
  }
  assert.deepEqual(agentplane, reference);
}
