// The shipped `approval` example driven from LangChain's agent-chat-ui, unmodified, in a real
// browser (issue 89): agentplane started as `npm start` starts it (the repository's project, a
// fresh data directory, no settings), agent-chat-ui's own dev server pointed at it by its
// `apiUrl` and `assistantId` query parameters, and Debian's Chromium through playwright-core.
// In three threads a message stops at the example's human-in-the-loop interrupt; the script
// checks that agent-chat-ui draws it as its review form (Edit/Approve, Reject), not as its
// fallback table of raw values, then approves, edits or rejects there (the third after
// reloading the page, so the interrupt comes from the thread's stored state, not the stream),
// and reads each thread's end from the server's API: idle, nothing pending, both runs
// successes, the reply the decision asked for. Last, its history sidebar lists the threads and
// one opened from it shows its reply, with no review form left.
//
// agent-chat-ui is only on GitHub (not on npm), so CI cannot run this; a person does, with a
// checkout of it (docs/dashboard.md says how):
//
//   AGENT_CHAT_UI_DIR=/path/to/agent-chat-ui npx tsx scripts/agentChatUi.ts
//
// Its dependencies are installed there (`npm install`) when it has none. It is served by
// `next dev`: `next build` fails without network, since its layout fetches a Google font at
// build time, where the dev server falls back to a local font. The dev server's first page
// takes a minute or more to compile; AGENT_CHAT_UI_URL=http://… names one already running
// instead, to run the checks again at once. AGENT_SERVER_URL=http://… drives another agent
// server serving the same graph as `approval` (upstream's `langgraphjs dev`, to compare)
// instead of starting agentplane. Screenshots go to SCREENSHOTS_DIR (default
// .cache/agent-chat-ui/). Exits 0 when every check holds.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { freePort, startChild } from './bench/proc.ts';
import { processTempDir } from '../src/shared/processTempDir.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const UI_DIR = process.env.AGENT_CHAT_UI_DIR;
const UI_URL = process.env.AGENT_CHAT_UI_URL;
const SERVER_URL = process.env.AGENT_SERVER_URL;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = path.resolve(process.env.SCREENSHOTS_DIR ?? path.join(ROOT, '.cache/agent-chat-ui'));
/** The first page of `next dev` compiles some 5,000 modules: minutes on a busy machine. */
const FIRST_COMPILE_MS = 600_000;
const ASSISTANT = 'approval';

/** A server this script started (its output is read for errors) or one it was given. */
interface Served {
  url: string;
  output?: () => string;
  stop(): Promise<void>;
}

const given = (url: string): Served => ({ url: url.replace(/\/$/, ''), stop: async () => {} });

interface Outcome {
  /** The reply the decision leads to, as the thread's last message. */
  reply: string;
  decide: (page: Page) => Promise<void>;
  /** Reload the page before deciding: the interrupt drawn from the thread's state, not the stream. */
  reloadFirst?: boolean;
}

/** The three decisions agent-chat-ui's review form offers, each in a thread of its own. */
const DECISIONS: Record<string, Outcome> = {
  approve: {
    reply: 'Sent to bob@example.com: "lunch".',
    decide: async (page) => {
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
    },
  },
  edit: {
    reply: 'Sent to bob@example.com: "lunch on Friday".',
    decide: async (page) => {
      await fieldOf(page, 'Subject').fill('lunch on Friday');
      // an edited draft is submitted as an edit (the button says so once a value changed)
      await page.getByRole('button', { name: 'Submit', exact: true }).click();
    },
  },
  reject: {
    reply: 'Not sent. Your note: not this week',
    reloadFirst: true,
    decide: async (page) => {
      await page.getByPlaceholder('Share feedback with the agent...').fill('not this week');
      await page.getByRole('button', { name: 'Submit rejection', exact: true }).click();
    },
  },
};

/** The edit card's text box under a field's label ("Subject" for `subject`). */
const fieldOf = (page: Page, label: string) => page.locator('p', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::textarea');

function installed(dir: string): void {
  if (fs.existsSync(path.join(dir, 'node_modules/.bin/next'))) return;
  console.log(`installing agent-chat-ui's dependencies in ${dir} …`);
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm install in ${dir} failed (${result.status ?? result.error?.message})`);
}

async function startAgentplane(): Promise<Served> {
  const port = await freePort();
  // as `npm start` runs it, from the repository, with a data directory of its own
  return startChild({
    name: 'agentplane',
    command: process.execPath,
    args: [path.join(ROOT, 'bin/agentplane.js'), 'serve', '--port', String(port), '--data', processTempDir('agentplane-acu-')],
    cwd: ROOT,
    port,
    probePath: '/ok',
    timeoutMs: 120_000,
  });
}

async function startAgentChatUi(dir: string): Promise<Served> {
  const port = await freePort();
  return startChild({
    name: 'agent-chat-ui',
    command: path.join(dir, 'node_modules/.bin/next'),
    args: ['dev', '--port', String(port), '--hostname', '127.0.0.1'],
    cwd: dir,
    env: { NEXT_TELEMETRY_DISABLED: '1' },
    port,
    probePath: '/',
    timeoutMs: FIRST_COMPILE_MS,
  });
}

async function api<T>(server: Served, route: string): Promise<T> {
  const res = await fetch(server.url + route);
  const body = await res.text();
  assert.equal(res.status, 200, `GET ${route}: ${res.status} ${body}`);
  return JSON.parse(body) as T;
}

async function shot(page: Page, name: string): Promise<void> {
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file });
  console.log(`  screenshot ${file}`);
}

/** One thread: a message, the interrupt drawn as a review form, a decision, the thread's end. */
async function decideInThread(browser: Browser, ui: Served, server: Served, decision: string): Promise<void> {
  const outcome = DECISIONS[decision];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => message.type() === 'error' && console.log(`  [agent-chat-ui console] ${message.text()}`));
  try {
    await page.goto(`${ui.url}/?apiUrl=${encodeURIComponent(server.url)}&assistantId=${ASSISTANT}`, { timeout: FIRST_COMPILE_MS });
    await page.getByPlaceholder('Type your message...').fill('email bob about lunch');
    await page.getByRole('button', { name: 'Send', exact: true }).click();

    await reviewFormShown(page);
    await shot(page, `${decision}-interrupt`);
    if (outcome.reloadFirst) {
      await page.reload();
      await reviewFormShown(page);
      await shot(page, `${decision}-interrupt-reloaded`);
    }

    await outcome.decide(page);
    await page.getByText(outcome.reply, { exact: true }).waitFor({ timeout: 120_000 });
    await shot(page, `${decision}-resumed`);

    const threadId = new URL(page.url()).searchParams.get('threadId');
    assert.ok(threadId, `the page names its thread: ${page.url()}`);
    await threadEnded(server, threadId, outcome.reply);
    assert.deepEqual(errors, [], 'agent-chat-ui threw no uncaught error');
    console.log(`ok ${decision}: thread ${threadId} resumed to "${outcome.reply}"`);
  } catch (error) {
    await shot(page, `${decision}-failed`);
    throw error;
  } finally {
    await context.close();
  }
}

/**
 * agent-chat-ui's review form for the HITL request: the action's name, its arguments to edit,
 * approve and reject. Its fallback for any other interrupt is a table of raw values.
 */
async function reviewFormShown(page: Page): Promise<void> {
  await page.getByText('send_email', { exact: true }).waitFor({ timeout: 120_000 });
  await page.getByText('Edit/Approve', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Submit rejection', exact: true }).waitFor();
  assert.equal(await fieldOf(page, 'To').inputValue(), 'bob@example.com');
  assert.equal(await page.getByText('Unable to render interrupt').count(), 0);
  await page.getByText('send_email', { exact: true }).scrollIntoViewIfNeeded();
}

/**
 * The history sidebar (threads searched by the graph's id in their metadata) lists the threads,
 * and one opened from it shows its conversation to the end, with no review form left.
 */
async function historyListsThreads(browser: Browser, ui: Served, server: Served, threads: number): Promise<void> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  try {
    await page.goto(`${ui.url}/?apiUrl=${encodeURIComponent(server.url)}&assistantId=${ASSISTANT}&chatHistoryOpen=true`);
    const listed = page.getByRole('button', { name: 'email bob about lunch', exact: true }).filter({ visible: true });
    await listed.nth(threads - 1).waitFor({ timeout: 60_000 });
    await listed.first().click();
    const replies = Object.values(DECISIONS).map((outcome) => page.getByText(outcome.reply, { exact: true }));
    await replies.reduce((any, reply) => any.or(reply)).waitFor();
    assert.equal(await page.getByText('Edit/Approve', { exact: true }).count(), 0);
    await shot(page, 'history');
    console.log(`ok history: ${await listed.count()} threads listed, one reopened to its reply`);
  } catch (error) {
    await shot(page, 'history-failed');
    throw error;
  } finally {
    await context.close();
  }
}

/** The thread as the server holds it: idle, nothing pending, its runs successes, the reply last. */
async function threadEnded(server: Served, threadId: string, reply: string): Promise<void> {
  // the page shows the reply from the stream a moment before the run's record is final
  for (let tries = 0; ; tries++) {
    const thread = await api<{ status: string }>(server, `/threads/${threadId}`);
    if (thread.status === 'idle' || tries >= 100) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const thread = await api<{ status: string; interrupts: object }>(server, `/threads/${threadId}`);
  assert.equal(thread.status, 'idle');
  assert.deepEqual(thread.interrupts, {});
  const state = await api<{ next: string[]; values: { messages: { content: string }[] } }>(server, `/threads/${threadId}/state`);
  assert.deepEqual(state.next, []);
  assert.equal(state.values.messages.at(-1)?.content, reply);
  const runs = await api<{ status: string }[]>(server, `/threads/${threadId}/runs`);
  assert.deepEqual(
    runs.map((run) => run.status),
    ['success', 'success'],
    'the first run stopped at the interrupt (success), the resuming run ended with success',
  );
}

/** agent-chat-ui's dev server: the one AGENT_CHAT_UI_URL names, else started from AGENT_CHAT_UI_DIR. */
async function agentChatUi(): Promise<Served> {
  if (UI_URL) return given(UI_URL);
  if (!UI_DIR)
    throw new Error('AGENT_CHAT_UI_DIR names a checkout of https://github.com/langchain-ai/agent-chat-ui (or AGENT_CHAT_UI_URL its running dev server)');
  const dir = path.resolve(UI_DIR);
  installed(dir);
  return startAgentChatUi(dir);
}

async function main(): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  const [server, ui] = await Promise.all([SERVER_URL ? given(SERVER_URL) : startAgentplane(), agentChatUi()]);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    for (const decision of Object.keys(DECISIONS)) await decideInThread(browser, ui, server, decision);
    await historyListsThreads(browser, ui, server, Object.keys(DECISIONS).length);
    if (server.output) assert.doesNotMatch(server.output(), /"level":"error"/, 'agentplane logged no error');
  } finally {
    await browser.close();
    await Promise.all([server.stop(), ui.stop()]);
  }
}

await main();
