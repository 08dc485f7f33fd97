// Two graphs that stop for a person, so the dashboard (and agent-chat-ui's inbox) can show
// and resume them. No network, no model.
//
// `approval`: drafts an email from the user's message, then calls interrupt() with the payload
// agent-chat-ui's inbox expects (a list of one HumanInterrupt: action_request, config with
// allow_accept / allow_edit / allow_respond / allow_ignore, description). Resumed with a
// HumanResponse list (`command: { resume: [{ type: 'accept' | 'edit' | 'response' | 'ignore', args }] }`),
// it sends the draft as it was, sends the edited one, answers the person's response, or drops it.
//
// `breakpoint`: the same draft and send as plain nodes, compiled with interruptBefore: ['send'],
// so every run pauses before sending until it is continued (a run with no input).
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { textOf } from './echo.ts';

interface Email {
  to: string;
  subject: string;
  body: string;
}

/** What agent-chat-ui's inbox answers (langgraph's HumanResponse). */
type HumanResponse =
  | { type: 'accept'; args: null }
  | { type: 'ignore'; args: null }
  | { type: 'response'; args: string }
  | { type: 'edit'; args: { action: string; args: Email } };

const lastHuman = (messages: BaseMessage[]) => textOf([...messages].reverse().find((m) => m.getType() === 'human')?.content);

/** A draft from "email bob about lunch": the first word after "email" is the addressee. */
function draftOf(request: string): Email {
  const to = /\bemail\s+(\S+)/i.exec(request)?.[1] ?? 'someone';
  const topic = /\babout\s+(.+)$/i.exec(request)?.[1] ?? request;
  return { to: `${to.toLowerCase()}@example.com`, subject: topic, body: `Hello,\n\nAbout ${topic}: ${request}\n` };
}

const sent = (email: Email) => new AIMessage(`Sent to ${email.to}: "${email.subject}".`);

export const approval = new StateGraph(MessagesAnnotation)
  .addNode('review', (state) => {
    const draft = draftOf(lastHuman(state.messages));
    const [answer] = interrupt<unknown, HumanResponse[]>([
      {
        action_request: { action: 'send_email', args: draft },
        config: { allow_accept: true, allow_edit: true, allow_respond: true, allow_ignore: true },
        description: `Send this email to ${draft.to}?`,
      },
    ]);
    if (answer?.type === 'accept') return { messages: [sent(draft)] };
    if (answer?.type === 'edit') return { messages: [sent({ ...draft, ...answer.args.args })] };
    if (answer?.type === 'response') return { messages: [new AIMessage(`Not sent. Your note: ${answer.args}`)] };
    return { messages: [new AIMessage('Not sent.')] };
  })
  .addEdge(START, 'review')
  .addEdge('review', END)
  .compile();

export const breakpoint = new StateGraph(MessagesAnnotation)
  .addNode('draft', (state) => {
    const draft = draftOf(lastHuman(state.messages));
    return { messages: [new AIMessage(`Draft for ${draft.to}: "${draft.subject}". Continue the run to send it.`)] };
  })
  .addNode('send', (state) => ({ messages: [sent(draftOf(lastHuman(state.messages)))] }))
  .addEdge(START, 'draft')
  .addEdge('draft', 'send')
  .addEdge('send', END)
  .compile({ interruptBefore: ['send'] });
