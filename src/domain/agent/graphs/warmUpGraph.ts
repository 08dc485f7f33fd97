// agentplane's own graph for warming the run path after a start (issue 89: a start's first run
// paid for V8 compiling the run path's code on first use, in the run worker and in the main
// thread). It does what an agent does, with no network and no project code: a chat model that
// streams its answer and calls a tool, the tool node, the model again. Only ever run on stores
// of the warm-up's own, in memory: nothing it does is seen.
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { LoadedGraph } from './graphs.ts';

/** The graph's id (and its assistant's name); a project file's graphs are read by their own ids, never this one's. */
export const WARM_UP_GRAPH = 'agentplane:warm-up';

/** A run's input, as a client sends a user message. */
export const WARM_UP_INPUT = { messages: [{ role: 'user', content: 'what is 6 * 7?' }] };

/** What clients stream: the SDK's and the dashboard's modes, and the messages' other form. */
export const WARM_UP_STREAM_MODES = [
  ['messages-tuple', 'values', 'updates'],
  ['messages', 'values'],
];

/**
 * How many runs: V8 compiles a function on its first call and again, to faster code (TurboFan, on
 * a thread of its own), once it has been called often enough; the project's first run then finds
 * the shared code as later runs do. With 3, the run path's hottest functions were still compiled
 * to it during the first four runs of the project (~15 ms of a core in the first, --trace-opt).
 */
export const WARM_UP_RUNS = 8;

/** The warm-up graph, compiled with `checkpointer`. */
export function warmUpGraph(checkpointer: BaseCheckpointSaver): LoadedGraph {
  const model = new WarmUpChatModel({});
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode('tools', new ToolNode([calculator]))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END), ['tools', END])
    .addEdge('tools', 'agent')
    .compile({ checkpointer });
  return { id: WARM_UP_GRAPH, kind: 'langgraph', graph };
}

const calculator = tool(() => '42', {
  name: 'calculator',
  description: 'Evaluates an arithmetic expression.',
  schema: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] },
});

/** Asks for the tool on a user turn, answers word by word after its result. */
class WarmUpChatModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  _llmType(): string {
    return 'warm-up';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = reply(messages);
    return { generations: [{ text: String(message.content), message }] };
  }

  /** Each piece is told to the run's callbacks as a token, as hosted models' streams do: LangGraph's `messages` mode streams them from there. */
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = reply(messages);
    const calls = message.tool_calls ?? [];
    const pieces = calls.length ? [''] : String(message.content).split(/(?<= )/);
    for (const [index, piece] of pieces.entries()) {
      const tool_call_chunks =
        index === 0 ? calls.map((c, i) => ({ id: c.id, name: c.name, args: JSON.stringify(c.args), index: i, type: 'tool_call_chunk' as const })) : [];
      const chunk = new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece, tool_call_chunks }) });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

function reply(messages: BaseMessage[]): AIMessage {
  if (messages.at(-1)?.getType() === 'tool') return new AIMessage('The answer is 42.');
  return new AIMessage({ content: '', tool_calls: [{ id: `call_${messages.length}`, name: 'calculator', args: { input: '6 * 7' }, type: 'tool_call' }] });
}
