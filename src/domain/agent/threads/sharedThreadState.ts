// One thread, any graph: a thread's state is continued by whichever graph runs on it next,
// as on upstream, where graphs sharing a `messages` channel continue one another's state.
// Plain-function graphs keep their state in their own checkpoint chain (plainState.ts) and
// LangGraph graphs in the checkpointer, so when a run's graph keeps its state where the
// thread's newest state is not, that state is carried over at the start of the run: a
// plain-function run starts from the LangGraph state; a LangGraph run gets the messages
// (and the other keys it has channels for) it does not have yet ahead of its input.
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import type { MessageDict } from '../messages/messages.ts';
import { serialiseValues } from '../messages/messages.ts';
import type { PlainSnapshot } from '../checkpoints/plainState.ts';

/** The newest root state a LangGraph graph wrote on the thread, with when it was written. */
export interface LangGraphHead {
  values: Record<string, unknown>;
  createdAt: string;
}

/** What reads a thread's LangGraph checkpoints: a saver, or the store's checkpointer itself. */
type CheckpointReader = Pick<BaseCheckpointSaver, 'getTuple'>;

/** A channel of a graph's state (not LangGraph's own: `__start__`, `branch:to:x`, ...). */
const isStateChannel = (name: string) => !name.startsWith('__') && !name.includes(':');

export async function langGraphHead(checkpointer: CheckpointReader, threadId: string): Promise<LangGraphHead | undefined> {
  const tuple = await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
  if (!tuple) return undefined;
  const values = Object.fromEntries(Object.entries(tuple.checkpoint.channel_values ?? {}).filter(([name]) => isStateChannel(name)));
  return { values: serialiseValues(values) as Record<string, unknown>, createdAt: tuple.checkpoint.ts };
}

const newer = (a: string, b: string) => Date.parse(a) > Date.parse(b);

/** What a plain-function run starts from: its own head, unless a LangGraph run wrote later. */
export function plainRunBase(own: PlainSnapshot | undefined, langGraph: LangGraphHead | undefined): Record<string, unknown> {
  const values = own?.values ?? { messages: [] };
  if (!langGraph || (own && !newer(langGraph.createdAt, own.createdAt))) return values;
  return { ...langGraph.values, messages: (langGraph.values.messages as MessageDict[] | undefined) ?? [] };
}

/**
 * A LangGraph run's input with what a later plain-function run added ahead of it: the
 * messages the graph's state lacks (by id), then the other keys the graph has channels for.
 * The input is unchanged when the graph's own state is the newest.
 */
export function langGraphRunInput(
  input: Record<string, unknown>,
  plain: PlainSnapshot | undefined,
  own: { values: Record<string, unknown>; createdAt?: string } | undefined,
  channels: readonly string[],
): Record<string, unknown> {
  if (!plain || (own?.createdAt && !newer(plain.createdAt, own.createdAt))) return input;
  const known = new Set(((own?.values.messages as { id?: string }[] | undefined) ?? []).map((m) => m.id));
  const carried: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(plain.values)) if (key !== 'messages' && channels.includes(key) && !(key in input)) carried[key] = value;
  const missing = plain.values.messages.filter((m) => !known.has(m.id));
  if (!channels.includes('messages') || missing.length === 0) return { ...carried, ...input };
  const given = input.messages === undefined ? [] : Array.isArray(input.messages) ? input.messages : [input.messages];
  return { ...carried, ...input, messages: [...missing, ...given] };
}

/**
 * A run forks only from a checkpoint of its own kind of graph: the other kind's checkpoint
 * is a state of another shape (LangGraph channels and tasks, or our chain's values), so
 * forking from it is refused with this error rather than started from nothing.
 */
export function otherKindForkError(threadId: string, checkpointId: string, runKind: 'plain' | 'langgraph'): Error {
  const [own, other] = runKind === 'plain' ? ['plain-function', 'LangGraph'] : ['LangGraph', 'plain-function'];
  return Object.assign(
    new Error(
      `Checkpoint ${checkpointId} of thread ${threadId} was written by a ${other} graph; a ${own} graph can fork only from a checkpoint a ${own} graph wrote`,
    ),
    { name: 'CheckpointNotFound' },
  );
}

export async function hasLangGraphCheckpoint(checkpointer: CheckpointReader, threadId: string, checkpointId: string): Promise<boolean> {
  return (await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId } })) !== undefined;
}
