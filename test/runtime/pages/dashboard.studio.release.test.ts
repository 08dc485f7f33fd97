// The dashboard as a LangGraph Studio user works with it (issue 68), in Debian's Chromium
// against a real agentplane on loopback: the agent first (no key asked for the agent server's
// pages), a run with per-run config and a breakpoint, paused and resumed from the page with the
// live graph marking where it is and the metrics following, a node's step (what it read and
// wrote, the diff it made) and a fork from an edited checkpoint, a failed node with its stack,
// a protocol run's events named by their kind, the runs table at 1100 px. Screenshots of each
// page go to the release checks' output folder (browser.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { startTestServer } from '../../support/server.ts';
import type { Page } from 'playwright-core';
import { dashboardFixture, openPage, pageErrors, screenshot } from '../../support/browser.ts';

const project = {
  graphs: {
    steps: './test/fixtures/graphs/dashboard.ts:steps',
    failing: './test/fixtures/graphs/dashboard.ts:failing',
    echo: './examples/graphs/echo.ts:echo',
  },
};

// the project's TypeScript graphs as they are, not the run's compiled copies: the failed node's
// stack trace on the run page must name the user's own file (dashboard.ts)
const fixture = dashboardFixture({ project, compiledModules: false });

const open = (path: string, options: { key?: string | null; width?: number } = {}) =>
  openPage(fixture.browser, fixture.server.url + path, { width: options.width, key: options.key === null ? undefined : (options.key ?? fixture.server.key) });

/** Every 401 the page got, every error it logged or threw, from the moment it is watched. */
function watchRefusals(page: Page): { refused: string[]; consoleErrors: string[]; thrown: string[] } {
  const seen = { refused: [] as string[], consoleErrors: [] as string[], thrown: [] as string[] };
  page.on('pageerror', (error) => seen.thrown.push(error.message));
  page.on('response', (res) => {
    if (res.status() === 401) seen.refused.push(res.url());
  });
  page.on('console', (message) => {
    if (message.type() === 'error') seen.consoleErrors.push(message.text());
  });
  return seen;
}

async function newThread(): Promise<string> {
  return ((await (await fixture.server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string }).thread_id;
}

async function runOn(threadId: string, assistant: string, text: string): Promise<void> {
  await fixture.server.api(`/threads/${threadId}/runs/wait`, {
    method: 'POST',
    json: { assistant_id: assistant, input: { messages: [{ role: 'user', content: text }] } },
  });
}

/** The figure the run metrics show for a field (Runs, Failed, …). */
const metric = (page: Page, field: string) => page.locator(`dl[aria-label="Run metrics of the window"] dt:text-is("${field}") + dd`);

/** Waits until the thread's runs have ended. */
async function idle(threadId: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const thread = (await (await fixture.server.api(`/threads/${threadId}`)).json()) as { status: string };
    if (thread.status !== 'busy') return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`thread ${threadId} stayed busy`);
}

describe('dashboard: the agent first', () => {
  test('/ui without a key opens on the assistants and their graphs; a control-plane page asks for the key when opened, with no 401', async () => {
    const context = await fixture.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const seen = watchRefusals(page);
    await page.goto(fixture.server.url + '/ui');
    await page.waitForURL('**/dashboard/assistants');
    const rows = page.locator('tbody tr');
    await rows.filter({ hasText: 'steps' }).first().waitFor();
    const graphs = await page.locator('tbody tr td:nth-child(2)').allTextContents();
    assert.deepEqual([...new Set(graphs)].sort(), ['echo', 'failing', 'steps']);
    // the nav leads with the agent server
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link').first().textContent(), 'Assistants');
    await screenshot(page, 'home-assistants');
    // an assistant's page and its graph, still without a key
    await page.getByRole('link', { name: 'steps', exact: true }).click();
    await page.getByRole('img', { name: /^Graph with 5 nodes/ }).waitFor();
    // the control plane: asked for the key, not called without one
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deployments' }).click();
    await page.getByRole('heading', { name: 'API key needed' }).waitFor();
    await screenshot(page, 'key-needed');
    assert.deepEqual(seen.refused, [], 'no request was refused for want of a key');
    assert.deepEqual(seen.consoleErrors, []);
    await page.locator('#api-key-page').fill(fixture.server.key);
    await page.locator('main').getByRole('button', { name: 'Use key' }).click();
    await page.getByText('No deployments').or(page.locator('tbody tr').first()).waitFor();
    await page.getByText(/API key set/).waitFor();
    assert.deepEqual(seen.refused, []);
    assert.deepEqual(seen.thrown, []);
    await context.close();
  });

  test('on the embedded default (no settings) the shipped connected graph reaches its consent step from the page', async () => {
    // as `npm start` leaves it: the API key and the token key made in the data directory
    const server = await startTestServer({ env: { AGENTPLANE_API_KEYS: '' }, project: { graphs: { connected: './examples/graphs/connected.ts:connected' } } });
    try {
      const key = (JSON.parse(fs.readFileSync(path.join(server.dataDir!, 'api-keys.json'), 'utf8')) as { keys: { key: string }[] }).keys[0].key;
      const provider = {
        provider_id: 'github',
        name: 'GitHub',
        client_id: 'an-oauth-app',
        auth_url: 'https://github.com/login/oauth/authorize',
        token_url: 'https://github.com/login/oauth/access_token',
      };
      assert.equal((await server.api('/v2/auth/providers', { method: 'POST', headers: { 'x-api-key': key }, json: provider })).status, 200);
      const page = await openPage(fixture.browser, `${server.url}/dashboard/assistants`);
      await page.getByRole('link', { name: 'connected', exact: true }).click();
      // the user the token is for, set for this run only
      await page.getByRole('region', { name: 'Run settings' }).getByLabel('Configurable (JSON)').fill('{"user_id": "alice"}');
      await page.getByLabel('Message', { exact: true }).fill('connect me');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const consent = page.getByRole('link', { name: 'Consent at github' });
      await consent.waitFor();
      assert.match((await consent.getAttribute('href')) ?? '', /^https:\/\/github\.com\/login\/oauth\/authorize\?.*client_id=an-oauth-app/);
      await page
        .getByRole('img', { name: /^Graph with/ })
        .locator('[data-node="connect"][data-state="paused"]')
        .waitFor();
      await screenshot(page, 'connected-consent');
      assert.deepEqual(pageErrors(page), []);
      await page.context().close();
    } finally {
      await server.close();
    }
  });
});

describe("dashboard: Studio's working surface", () => {
  test('a run with per-run config and a breakpoint pauses before the node, the graph marks it, Continue resumes it, the metrics follow', async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'steps', exact: true }).click();
    const settings = page.getByRole('region', { name: 'Run settings' });
    await settings.getByRole('checkbox', { name: 'Pause before act' }).check();
    await settings.getByLabel('Configurable (JSON)').fill('{"prefix": "done"}');
    await settings.getByText('In force: configurable prefix; pause before act.').waitFor();
    await metric(page, 'Runs').filter({ hasText: /^0$/ }).waitFor();
    await page.getByLabel('Message', { exact: true }).fill('tidy up');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const paused = page.getByRole('region', { name: 'Paused at a breakpoint' });
    await paused.getByText('Paused before act').waitFor();
    // the live graph says where the run is
    const graph = page.getByRole('img', { name: /^Graph with/ });
    await graph.locator('[data-node="act"][data-state="paused"]').waitFor();
    assert.equal(await graph.locator('[data-state]').count(), 1);
    // the metrics follow the thread without waiting for their next poll
    await metric(page, 'Runs').filter({ hasText: /^1$/ }).waitFor({ timeout: 3000 });
    await page.locator('.chat .message-ai', { hasText: 'plan: tidy up' }).waitFor();
    assert.equal(await page.locator('.chat .message-ai', { hasText: 'done:' }).count(), 0);
    await screenshot(page, 'assistant-breakpoint');
    await paused.getByRole('button', { name: 'Continue' }).click();
    // the run's config held through the resume: act wrote with the prefix of this run
    await page.locator('.chat .message-ai', { hasText: 'done: tidy up' }).waitFor();
    await paused.waitFor({ state: 'detached' });
    await graph.locator('[data-state]').first().waitFor({ state: 'detached' });
    await metric(page, 'Runs').filter({ hasText: /^2$/ }).waitFor({ timeout: 3000 });
    // the server ran what the page asked for
    const threadId = new URL((await page.locator('.chat-head a').getAttribute('href'))!, fixture.server.url).pathname.split('/').at(-1);
    const runs = (await (await fixture.server.api(`/threads/${threadId}/runs`)).json()) as { kwargs: Record<string, any> }[];
    const first = runs.at(-1)!.kwargs;
    assert.deepEqual(first.interrupt_before, ['act']);
    assert.equal(first.config.configurable.prefix, 'done');
    await screenshot(page, 'assistant-resumed');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("a node's step shows what it read, what it returned and the diff it made; a fork from an edited checkpoint runs on the edit", async () => {
    const thread = await newThread();
    await runOn(thread, 'steps', 'fork me');
    const page = await open(`/dashboard/threads/${thread}`);
    const history = page.getByRole('list', { name: 'Checkpoints, newest first' });
    // the checkpoint before act: what act read there, what it returned, what that changed
    await history.getByRole('button', { name: /next act/ }).click();
    const step = page.getByRole('region', { name: 'What the node did' });
    await step.getByRole('heading', { name: 'Node act' }).waitFor();
    const diff = step.getByRole('list', { name: 'State diff' });
    await diff.locator('li.added', { hasText: 'ai: did: fork me' }).waitFor();
    assert.equal(await diff.locator('li').count(), 1, 'only what act added');
    await step.getByText('Input: the state it read').click();
    await step.getByText('"plan: fork me"').first().waitFor();
    await step.getByText('Update: what it returned').click();
    await step.getByText('"did: fork me"').first().waitFor();
    await screenshot(page, 'thread-node-step');
    // the same checkpoint, its state edited, and run from the edit
    const then = page.getByRole('region', { name: 'State at the picked checkpoint' });
    await then.getByRole('button', { name: 'Edit state here' }).click();
    const values = then.getByLabel(/State at this checkpoint/);
    await values.fill((await values.inputValue()).replace('"fork me"', '"edited words"'));
    await then.getByRole('button', { name: 'Save and re-run' }).click();
    await page.locator('.message-ai', { hasText: 'did: edited words' }).first().waitFor();
    await history
      .getByText(/branches off step/)
      .first()
      .waitFor();
    await screenshot(page, 'thread-fork-edited');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('a failed node: its error said once in the chat, the node marked failed, its stack trace on the run page', async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'failing', exact: true }).click();
    await page.getByLabel('Message', { exact: true }).fill('what now?');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const failed = page.getByRole('alert', { name: 'The last run failed' });
    await failed.getByText('The last run failed in answer.').waitFor();
    assert.equal(await page.locator('.chat').getByText('the model is unavailable (503)').count(), 1, 'the error is said once');
    await page
      .getByRole('img', { name: /^Graph with/ })
      .locator('[data-node="answer"][data-state="failed"]')
      .waitFor();
    await screenshot(page, 'assistant-failed');
    await failed.getByRole('link', { name: 'See the run and its trace' }).click();
    const node = page.getByRole('list', { name: 'Trace' }).locator('li[data-kind="node"].span-error');
    await node.locator('.span-name', { hasText: 'answer' }).waitFor();
    const stack = node.locator('pre.stack');
    await stack.waitFor();
    assert.match((await stack.textContent()) ?? '', /Error: the model is unavailable \(503\)\n\s+at .*test\/fixtures\/graphs\/dashboard\.ts/);
    await screenshot(page, 'run-trace-stack');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  /** A thread with a run started over the thread protocol and a plain one after it. */
  async function protocolThread(): Promise<string> {
    const thread = await newThread();
    await fixture.server.api(`/threads/${thread}/commands`, {
      method: 'POST',
      json: { id: 1, method: 'run.start', params: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'over the protocol' }] } } },
    });
    await idle(thread);
    await runOn(thread, 'echo', 'and a plain run');
    return thread;
  }

  test("a protocol run's events are named by their kind, not all `protocol`", async () => {
    const thread = await protocolThread();
    const page = await open(`/dashboard/threads/${thread}`);
    await page.locator('table a[href*="/runs/"]').nth(1).waitFor();
    // runs newest first: the protocol run is the older one
    await page.locator('table a[href*="/runs/"]').last().click();
    const events = page.getByRole('list', { name: 'Stream events' });
    await events.locator('li').nth(1).waitFor();
    const kinds = await events.locator('code.event-kind').allTextContents();
    assert.ok(!kinds.includes('protocol'), kinds.join(', '));
    assert.ok(
      kinds.some((k) => k.startsWith('values')),
      kinds.join(', '),
    );
    await screenshot(page, 'run-protocol-events');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("the thread page's runs table fits its column at 1100 px", async () => {
    const thread = await protocolThread();
    const page = await open(`/dashboard/threads/${thread}`, { width: 1100 });
    const runsTable = page.getByRole('region', { name: 'Runs' }).locator('.table-wrap');
    await runsTable.locator('tbody tr').nth(1).waitFor();
    const fits = await runsTable.evaluate((wrap) => wrap.scrollWidth <= wrap.clientWidth);
    assert.ok(fits, 'the runs table overflows its column');
    await screenshot(page, 'thread-1100');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });
});
