// Two graphs that stop for a person, so the dashboard (and LangChain's agent-chat-ui) can show
// and resume them. No network, no model.
//
// `approval`: drafts an email from the user's message, then calls interrupt() with the
// human-in-the-loop request LangChain's HITL middleware sends and agent-chat-ui's inbox reads:
// `{ action_requests: [{ name, args, description }], review_configs: [{ action_name, allowed_decisions }] }`.
// Resumed with one decision per action (`command: { resume: { decisions: [...] } }`): `approve`
// sends the draft as it was, `edit` sends `edited_action.args` instead, `reject` drops it and
// keeps the reviewer's `message`.
//
// Its run settings are a context schema (Zod), so the dashboard draws them as a form: the
// email's priority (an enum), a word limit for its body (a number), whether to ask at all (a
// boolean) and the greeting it opens with (a string with a default). Their defaults draft the
// email as the graph always did.
//
// `breakpoint`: the same draft and send as plain nodes, compiled with interruptBefore: ['send'],
// so every run pauses before sending until it is continued (a run with no input).
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { END, interrupt, MessagesAnnotation, START, StateGraph, type Runtime } from '@langchain/langgraph';
import { z } from 'zod';
import { textOf } from './echo.ts';

const Settings = z.object({
  priority: z.enum(['low', 'normal', 'high']).default('normal').describe('How urgent the email is: a high one is marked so in its subject'),
  max_words: z.number().int().min(1).optional().describe('At most this many words in the body'),
  ask_first: z.boolean().default(true).describe('Ask a person before sending (off: sent at once)'),
  greeting: z.string().default('Hello').describe('The first word of the body'),
});
type Settings = z.infer<typeof Settings>;

interface Email {
  to: string;
  subject: string;
  body: string;
}

/** A reviewer's decision on one action, as the HITL middleware reads it. */
type Decision = { type: 'approve' } | { type: 'edit'; edited_action: { name: string; args: Partial<Email> } } | { type: 'reject'; message?: string };

const lastHuman = (messages: BaseMessage[]) => textOf([...messages].reverse().find((m) => m.getType() === 'human')?.content);

/** A draft from "email bob about lunch": the first word after "email" is the addressee. */
function draftOf(request: string, settings: Partial<Settings> = {}): Email {
  const to = /\bemail\s+(\S+)/i.exec(request)?.[1] ?? 'someone';
  const topic = /\babout\s+(.+)$/i.exec(request)?.[1] ?? request;
  const words = `${settings.greeting ?? 'Hello'},\n\nAbout ${topic}: ${request}`.split(' ');
  const body = settings.max_words ? words.slice(0, settings.max_words).join(' ') : words.join(' ');
  const subject = settings.priority === 'high' ? `[urgent] ${topic}` : topic;
  return { to: `${to.toLowerCase()}@example.com`, subject, body: `${body}\n` };
}

const sent = (email: Email) => new AIMessage(`Sent to ${email.to}: "${email.subject}".`);

export const approval = new StateGraph(MessagesAnnotation, Settings)
  .addNode('review', (state, runtime: Runtime<Settings>) => {
    const draft = draftOf(lastHuman(state.messages), runtime.context);
    if (runtime.context?.ask_first === false) return { messages: [sent(draft)] };
    const answer = interrupt<unknown, { decisions?: Decision[] } | null>({
      action_requests: [{ name: 'send_email', args: draft, description: `Send this email to ${draft.to}?` }],
      review_configs: [{ action_name: 'send_email', allowed_decisions: ['approve', 'edit', 'reject'] }],
    });
    // anything but a decision (a bare string, null) drops the draft as a rejection would
    const decision = answer?.decisions?.[0];
    if (decision?.type === 'approve') return { messages: [sent(draft)] };
    if (decision?.type === 'edit') return { messages: [sent({ ...draft, ...decision.edited_action?.args })] };
    const reason = decision?.type === 'reject' && decision.message ? ` Your note: ${decision.message}` : '';
    return { messages: [new AIMessage(`Not sent.${reason}`)] };
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
