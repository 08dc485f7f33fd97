// The `agent` graph: a LangGraph.js tool-calling agent with a deterministic chat model, so
// it takes several steps per run (agent → tools → agent) without network or API key. It
// evaluates simple arithmetic ("what is 6 * 7?") with a calculator tool and counts words
// otherwise. The model is a real LangChain chat model that streams its answer word by word
// and the tools are LangChain tools run by LangGraph's ToolNode, so every stream mode
// (messages tokens, tools, events) shows what it would with a hosted model.
import { BaseChatModel, type BaseChatModelCallOptions } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { tool } from '@langchain/core/tools';
import { END, MessagesAnnotation, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { textOf } from './echo.ts';

/** The tools' one argument, as a JSON Schema (LangChain tools take one as well as a zod schema). */
const ONE_TEXT_INPUT = { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } as const;

const ARITHMETIC = /(-?\d+(?:\.\d+)?)\s*([+\-*/x×])\s*(-?\d+(?:\.\d+)?)/;

const calculator = tool(
  ({ input }: { input: string }) => {
    const m = ARITHMETIC.exec(input);
    if (!m) return 'no expression found';
    const [a, op, b] = [Number(m[1]), m[2], Number(m[3])];
    return String(op === '+' ? a + b : op === '-' ? a - b : op === '/' ? a / b : a * b);
  },
  { name: 'calculator', description: 'Evaluates one arithmetic operation such as "6 * 7".', schema: ONE_TEXT_INPUT },
);

const wordCount = tool(({ input }: { input: string }) => String(input.split(/\s+/).filter(Boolean).length), {
  name: 'word_count',
  description: 'Counts the words of a text.',
  schema: ONE_TEXT_INPUT,
});

/** The deterministic model: ask for a tool on a user turn, answer after a tool result. */
function decide(messages: BaseMessage[], turn: number): AIMessage {
  const last = messages.at(-1);
  if (!last) return new AIMessage('Nothing to do.');
  if (last.getType() === 'tool') {
    return new AIMessage(last.name === 'calculator' ? `The answer is ${textOf(last.content)}.` : `Your message has ${textOf(last.content)} words.`);
  }
  const text = textOf(last.content);
  const name = ARITHMETIC.test(text) ? 'calculator' : 'word_count';
  return new AIMessage({ content: '', tool_calls: [{ id: `call_${turn}`, name, args: { input: text }, type: 'tool_call' }] });
}

class ScriptedChatModel extends BaseChatModel<BaseChatModelCallOptions, AIMessageChunk> {
  _llmType(): string {
    return 'scripted';
  }

  /** What a trace names the model and its provider by (a hosted model names its own, e.g. openai / gpt-4o). */
  override getLsParams(options: this['ParsedCallOptions']) {
    return { ...super.getLsParams(options), ls_provider: 'agentplane', ls_model_name: 'scripted-calculator' };
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const message = decide(messages, messages.length);
    return { generations: [{ text: textOf(message.content), message }] };
  }

  /** Streams the answer word by word (a tool call comes as one chunk), like a hosted model. */
  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const message = decide(messages, messages.length);
    const calls = message.tool_calls ?? [];
    const pieces = calls.length ? [''] : textOf(message.content).split(/(?<= )/);
    for (const [index, piece] of pieces.entries()) {
      const chunk = new AIMessageChunk({
        content: piece,
        tool_call_chunks:
          index === 0 ? calls.map((c, i) => ({ id: c.id, name: c.name, args: JSON.stringify(c.args), index: i, type: 'tool_call_chunk' as const })) : [],
      });
      yield new ChatGenerationChunk({ text: piece, message: chunk });
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, {
        chunk: new ChatGenerationChunk({ text: piece, message: chunk }),
      });
    }
  }
}

const model = new ScriptedChatModel({});

async function agentNode(state: typeof MessagesAnnotation.State, config: LangGraphRunnableConfig) {
  // a progress note for clients that stream the `custom` mode
  config.writer?.({ node: 'agent', turn: state.messages.length });
  const reply = await model.invoke(state.messages);
  // the state keeps a whole AIMessage (not the streamed chunk), with the id its tokens carried
  return { messages: [new AIMessage({ id: reply.id, content: reply.content, tool_calls: reply.tool_calls })] };
}

const route = (state: typeof MessagesAnnotation.State) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END);

export const agent = new StateGraph(MessagesAnnotation)
  .addNode('agent', agentNode)
  .addNode('tools', new ToolNode([calculator, wordCount]))
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', route, ['tools', END])
  .addEdge('tools', 'agent')
  .compile();
