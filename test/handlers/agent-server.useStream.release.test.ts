// Apps written against @langchain/react 1.1's and @langchain/svelte 1.0's useStream (protocol
// v2), built with Vite (test/fixtures/use-stream-react, use-stream-svelte), in Chromium,
// against the upstream dev server and against agentplane, unchanged except for their server
// (a page is served from the server's own origin and talks to it). React: ask, watch the
// answer stream token by token with its tool call and the subgraph, see the interrupt, reload
// the page (the thread is picked up again), approve from the page, see the resumed run's
// message. Svelte, smaller: the streamed answer and tool call, then an interrupt answered from
// the page. What the pages showed is asserted, and must be the same on both servers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { build } from 'vite';
import { launchBrowser, openPage, pageErrors } from '../support/browser.ts';
import { startServers, type Servers, type RunningServer } from '../differential/harness.ts';
import { ROOT, tempDir } from '../support/server.ts';

// callbacks of page.evaluate run in the browser; this program is typed without the DOM library
declare const document: any;

const FIXTURES = path.join(ROOT, 'test/fixtures');
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

interface Shown {
  messages: string[];
  tools: string[];
  subgraphs: string[];
  streamed: string[];
  interrupt: string | null;
  error: string | null;
}

/** What the page shows (each list as its items' text). A string: tsx would name the helpers of a function with a `__name` the page lacks. */
const shown = (page: Page): Promise<Shown> =>
  page.evaluate(`(() => {
    const items = (id) => [...document.querySelectorAll('#' + id + ' li')].map((li) => li.textContent);
    return {
      messages: items('messages'),
      tools: items('tools'),
      subgraphs: items('subgraphs'),
      streamed: JSON.parse(document.querySelector('#shown')?.textContent ?? '[]'),
      interrupt: document.querySelector('#interrupt span')?.textContent ?? null,
      error: document.querySelector('#error')?.textContent ?? null,
    };
  })()`);

/** A page at `${server}/app/`, its files from the Vite build in `dist`. */
async function openApp(browser: Browser, server: RunningServer, dist: string, query = '') {
  const page = await openPage(browser, 'about:blank');
  await page.context().route(`${server.url}/app/**`, (route) => {
    const file = new URL(route.request().url()).pathname.replace(/^\/app\/?/, '') || 'index.html';
    void route.fulfill({ contentType: TYPES[path.extname(file)] ?? 'application/octet-stream', body: fs.readFileSync(path.join(dist, file)) });
  });
  await page.goto(`${server.url}/app/${query}`);
  return page;
}

const ask = async (page: Page, question: string) => {
  await page.locator('#draft').fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
};
const idleWith = (page: Page, pattern: RegExp) =>
  page
    .waitForFunction(
      (source: string) => document.body.dataset.loading === 'false' && new RegExp(source).test(document.querySelector('#messages')?.textContent ?? ''),
      pattern.source,
      { timeout: 60_000 },
    )
    .catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await stuckAt(page)}`);
    });

/**
 * What a page that never settled showed, and what its server says of the thread's runs: whether
 * the run itself stayed unfinished, or the page missed the end of a run that did finish.
 */
async function stuckAt(page: Page): Promise<string> {
  const loading = await page.evaluate('document.body.dataset.loading').catch(() => '?');
  const showing = await shown(page).catch((err: Error) => err.message);
  const url = new URL(page.url());
  const thread = url.searchParams.get('thread');
  let runs = 'no thread in the address';
  if (thread)
    runs = await fetch(`${url.origin}/threads/${thread}/runs`, { headers: { authorization: 'Bearer user-alice' } })
      .then(async (res) => `${res.status} ${JSON.stringify(((await res.json()) as { run_id: string; status: string }[]).map((r) => [r.run_id, r.status]))}`)
      .catch((err: Error) => err.message);
  return `the page: loading=${String(loading)} ${JSON.stringify(showing)}\nthe thread ${thread}'s runs on its server: ${runs}`;
}

/**
 * What must be the same on both servers. Which part-way texts of a streamed answer React
 * rendered depends on how the tokens fell into frames (a loaded machine batches them), so
 * of those only the last counts here; each server's own test asserts there were some.
 */
const comparable = (value: unknown): unknown => JSON.parse(JSON.stringify(value), (key, v) => (key === 'streamed' && Array.isArray(v) ? v.slice(-1) : v));

/**
 * Waits (up to 15 s) until `selector` matches `count` items, or, with `unless`, none whose
 * text matches it. It does not fail: if the page never settles, the comparison shows what it showed.
 */
const settled = (page: Page, selector: string, count: number, unless?: RegExp) =>
  page
    .waitForFunction(
      ([sel, n, source]: [string, number, string | null]) => {
        const items = [...document.querySelectorAll(sel)].map((li: { textContent: string }) => li.textContent);
        return source === null ? items.length >= n : !items.some((t: string) => new RegExp(source).test(t));
      },
      [selector, count, unless?.source ?? null] as [string, number, string | null],
      { timeout: 15_000 },
    )
    .catch(() => {});

/** The React page's steps, on one server; what the page showed after each. */
async function reactChat(browser: Browser, server: RunningServer, dist: string) {
  const page = await openApp(browser, server, dist);
  try {
    await ask(page, 'what is 6 * 7');
    await page.locator('#interrupt').waitFor({ timeout: 60_000 });
    // the question (input.requested) comes a few events before the subgraph's and the run's
    // ends, on either server; a loaded machine shows the page in between
    await settled(page, `#subgraphs li`, 0, /: running$/);
    const interrupted = await shown(page);
    const threadInAddress = new URL(page.url()).searchParams.get('thread');

    await page.reload();
    await page.locator('#interrupt').waitFor({ timeout: 60_000 });
    await page.waitForFunction((count: number) => document.querySelectorAll('#messages li').length >= count, interrupted.messages.length, { timeout: 60_000 });
    // the page fills from several answers at once (the state, the history and two event
    // streams), in whatever order they arrive: on a loaded machine the tool calls came a
    // moment after the messages, on either server. What is compared is what it settles on.
    await settled(page, `#tools li`, interrupted.tools.length);
    const reloaded = await shown(page);

    await page.getByRole('button', { name: 'Approve' }).click();
    await idleWith(page, /reviewed:/);
    // a subgraph's end is on the other event stream than the run's, so may be shown after it
    await settled(page, `#subgraphs li`, 0, /: running$/);
    const approved = await shown(page);
    return { interrupted, reloaded, approved, threadKept: threadInAddress === new URL(page.url()).searchParams.get('thread'), errors: pageErrors(page) };
  } finally {
    await page.close();
  }
}

/** The Svelte page's steps: the assistant's streamed answer, then the approval graph's interrupt answered. */
async function svelteChat(browser: Browser, server: RunningServer, dist: string) {
  const streamed = await openApp(browser, server, dist);
  const approval = await openApp(browser, server, dist, '?assistant=approval');
  try {
    await ask(streamed, 'what is 6 * 7');
    await idleWith(streamed, /The answer is 42\./);
    const answered = await shown(streamed);
    await ask(approval, 'may I?');
    await approval.locator('#interrupt').waitFor({ timeout: 60_000 });
    const interrupted = await shown(approval);
    await approval.getByRole('button', { name: 'Approve' }).click();
    await idleWith(approval, /decision:/);
    // the resumed run's message and the cleared question come in different events; a loaded
    // machine showed the page in between (on the upstream server, in CI)
    await settled(approval, '#interrupt', 0, /(?:)/);
    const approved = await shown(approval);
    return { answered, interrupted, approved, errors: [...pageErrors(streamed), ...pageErrors(approval)] };
  } finally {
    await streamed.close();
    await approval.close();
  }
}

/** Builds a fixture's page with Vite into a fresh folder. */
async function buildPage(fixture: string): Promise<string> {
  const outDir = tempDir(`agentplane-${fixture}-`);
  await build({ configFile: path.join(FIXTURES, fixture, 'vite.config.ts'), build: { outDir } });
  return outDir;
}

describe(
  'useStream of @langchain/react 1.1 and @langchain/svelte 1.0 in Chromium: the same pages on the upstream dev server and on agentplane',
  { timeout: 600_000 },
  () => {
    let servers: Servers;
    let browser: Browser;
    let reactPage: string;
    let sveltePage: string;
    const seen: Partial<Record<string, unknown>> = {};
    before(async () => {
      const started = performance.now();
      reactPage = await buildPage('use-stream-react');
      sveltePage = await buildPage('use-stream-svelte');
      console.log(`# pages built with Vite in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      [servers, browser] = await Promise.all([startServers((line) => console.log(`# ${line}`)), launchBrowser()]);
    });
    after(async () => {
      await browser?.close();
      await Promise.all([servers?.upstream.stop(), servers?.agentplane.stop()]);
    });

    for (const name of ['upstream', 'agentplane'] as const) {
      it(`React: streams, interrupts, reloads and resumes against ${name}`, async () => {
        const got = await reactChat(browser, servers[name], reactPage);
        seen[`react ${name}`] = got;
        const { interrupted, reloaded, approved } = got;
        assert.deepEqual(got.errors, []);
        assert.equal(interrupted.error, null);
        // the tool call, its result and the answer, streamed token by token
        assert.equal(interrupted.messages[0], 'human: what is 6 * 7');
        assert.ok(interrupted.messages.includes('tool: 42'), JSON.stringify(interrupted.messages));
        assert.ok(
          interrupted.messages.some((m) => m.includes('The answer is 42.')),
          JSON.stringify(interrupted.messages),
        );
        const [first, final] = [interrupted.streamed[0], interrupted.streamed.at(-1)];
        assert.equal(final, 'The answer is 42.');
        const partWay = first !== final && final.startsWith(first);
        // that the page grew the answer token by token is agentplane's claim; upstream is the
        // reference for the rest (on a loaded CI machine its tokens once reached React in one
        // frame, and the page showed only the whole answer)
        if (name === 'agentplane') assert.ok(partWay, `the answer was never shown part-way: ${JSON.stringify(interrupted.streamed)}`);
        else if (!partWay) console.log(`# upstream's page showed the answer only whole this time: ${JSON.stringify(interrupted.streamed)}`);
        assert.ok(
          interrupted.tools.some((t) => t.startsWith('calculator') && t.includes('6 * 7') && t.includes('42')),
          JSON.stringify(interrupted.tools),
        );
        // the subgraph that asks, and its question
        assert.ok(
          interrupted.subgraphs.some((s) => s.startsWith('review')),
          JSON.stringify(interrupted.subgraphs),
        );
        assert.equal(interrupted.interrupt, JSON.stringify({ question: 'approve the answer?' }));
        // a reload picks the same thread up: the conversation and the pending question
        assert.ok(got.threadKept);
        assert.deepEqual(reloaded.messages, interrupted.messages);
        assert.equal(reloaded.interrupt, interrupted.interrupt);
        // approved from the page: the resumed run's message, the question gone
        assert.equal(approved.messages.at(-1), 'ai: reviewed: approved from the page');
        assert.equal(approved.interrupt, null);
      });
    }

    for (const name of ['upstream', 'agentplane'] as const) {
      it(`Svelte: streams, interrupts and resumes against ${name}`, async () => {
        const got = await svelteChat(browser, servers[name], sveltePage);
        seen[`svelte ${name}`] = got;
        assert.deepEqual(got.errors, []);
        assert.deepEqual(got.answered.messages, ['human: what is 6 * 7', 'ai: ', 'tool: 42', 'ai: The answer is 42.']);
        assert.deepEqual(got.answered.tools, ['calculator {"expression":"what is 6 * 7"} → 42']);
        assert.equal(got.interrupted.interrupt, JSON.stringify({ question: 'approve?' }));
        assert.deepEqual(got.approved.messages, ['human: may I?', 'ai: decision: approved from the page']);
        assert.equal(got.approved.interrupt, null);
      });
    }

    for (const library of ['React', 'Svelte'])
      it(`${library}: the page shows the same on both servers`, () => {
        const [upstream, agentplane] = [seen[`${library.toLowerCase()} upstream`], seen[`${library.toLowerCase()} agentplane`]];
        assert.ok(upstream && agentplane, 'the page did not get through its steps on both servers (above)');
        assert.deepEqual(comparable(agentplane), comparable(upstream));
      });
  },
);
