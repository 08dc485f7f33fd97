// The `agent` graph: a LangGraph.js tool-calling agent with a deterministic "model", so it
// takes several steps per run (agent → tools → agent) without network or model. It
// evaluates simple arithmetic ("what is 6 * 7?") with a calculator tool and counts words
// otherwise.
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { textOf } from './echo.ts';

const ARITHMETIC = /(-?\d+(?:\.\d+)?)\s*([+\-*/x×])\s*(-?\d+(?:\.\d+)?)/;

function calculator(expression: string): string {
  const m = ARITHMETIC.exec(expression);
  if (!m) return 'no expression found';
  const [a, op, b] = [Number(m[1]), m[2], Number(m[3])];
  const value = op === '+' ? a + b : op === '-' ? a - b : op === '/' ? a / b : a * b;
  return String(value);
}

const wordCount = (text: string) => String(text.split(/\s+/).filter(Boolean).length);

const TOOLS: Record<string, (input: string) => string> = { calculator, word_count: wordCount };

/** The deterministic model: ask for a tool on a user turn, answer after a tool result. */
function agentNode(state: typeof MessagesAnnotation.State) {
  const last = state.messages.at(-1) as BaseMessage | undefined;
  if (!last) return { messages: [new AIMessage('Nothing to do.')] };
  if (last.getType() === 'tool') {
    const tool = last as ToolMessage;
    const answer = tool.name === 'calculator' ? `The answer is ${tool.content}.` : `Your message has ${tool.content} words.`;
    return { messages: [new AIMessage(answer)] };
  }
  const text = textOf(last.content);
  const name = ARITHMETIC.test(text) ? 'calculator' : 'word_count';
  const call = { id: `call_${state.messages.length}`, name, args: { input: text }, type: 'tool_call' as const };
  return { messages: [new AIMessage({ content: '', tool_calls: [call] })] };
}

function toolsNode(state: typeof MessagesAnnotation.State) {
  const last = state.messages.at(-1) as AIMessage;
  return {
    messages: (last.tool_calls ?? []).map(
      (call) => new ToolMessage({ content: TOOLS[call.name]?.(String(call.args.input)) ?? 'unknown tool', tool_call_id: call.id ?? '', name: call.name }),
    ),
  };
}

const route = (state: typeof MessagesAnnotation.State) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END);

export const agent = new StateGraph(MessagesAnnotation)
  .addNode('agent', agentNode)
  .addNode('tools', toolsNode)
  .addEdge(START, 'agent')
  .addConditionalEdges('agent', route, ['tools', END])
  .addEdge('tools', 'agent')
  .compile();
