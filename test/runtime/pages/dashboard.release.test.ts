// The web dashboard in a real browser (Debian's Chromium through playwright-core) against a
// real agentplane on loopback: control-plane pages and forms, the live revision timeline,
// the agent-server pages and the streaming chat. Screenshots: see browser.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { dashboardBuilt, launchBrowser, openPage, pageErrors, screenshot } from '../../support/browser.ts';

// callbacks of page.evaluate run in the browser; this program is typed without the DOM library
declare const document: any;
declare const window: any;

const project = {
  graphs: {
    echo: './examples/graphs/echo.ts:echo',
    agent: './examples/graphs/agent.ts:agent',
    chatty: './test/fixtures/graphs/dashboard.ts:chatty',
    approval: './examples/graphs/approval.ts:approval',
    breakpoint: './examples/graphs/approval.ts:breakpoint',
    greeter: './test/fixtures/graphs/dashboard.ts:greeter',
    failing: './test/fixtures/graphs/dashboard.ts:failing',
    pricer: './test/fixtures/graphs/dashboard.ts:pricer',
    reviewer: './test/fixtures/graphs/dashboard.ts:reviewer',
  },
};

let server: TestServer;
let browser: Browser;

before(async () => {
  await dashboardBuilt();
  // phases long enough that the page is seen moving through them, short enough to be quick
  [server, browser] = await Promise.all([startTestServer({ project, env: { AGENTPLANE_PHASE_MS: '150' } }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const open = (path: string, options: { width?: number; height?: number; key?: string | null } = {}) =>
  openPage(browser, server.url + path, { ...options, key: options.key === null ? undefined : (options.key ?? server.key) });

async function fillCreateForm(page: Page, fields: Record<string, string>): Promise<void> {
  await page.getByRole('link', { name: 'New deployment' }).click();
  for (const [field, value] of Object.entries(fields)) {
    const input = page.locator(`#field-${field}`);
    if ((await input.evaluate((e) => e.tagName)) === 'SELECT') await input.selectOption(value);
    else await input.fill(value);
  }
  await page.getByRole('button', { name: 'Create deployment' }).click();
}

const githubFields = (name: string) => ({
  name,
  source: 'github',
  'source_config-repo_url': 'https://github.com/acme/agent',
  'source_revision_config-repo_ref': 'main',
  'source_revision_config-graph_config_path': 'langgraph.json',
});

/** Marks the document; still marked later = the page was never reloaded in between. */
const markDocument = (page: Page) => page.evaluate(() => ((window as unknown as { __mark: number }).__mark = 1));
const stillSameDocument = (page: Page) => page.evaluate(() => (window as unknown as { __mark?: number }).__mark === 1);

describe('dashboard: serving', () => {
  test('/ and the old /ui redirect to /dashboard, which opens on the assistants; the API key is asked for by the control plane once and kept for the session', async () => {
    for (const old of ['/', '/ui', '/ui/']) {
      const res = await fetch(server.url + old, { redirect: 'manual' });
      assert.equal(res.status, 302, old);
      assert.equal(res.headers.get('location'), '/dashboard/', old);
    }
    const page = await open('/', { key: null });
    await page.waitForURL('**/dashboard/assistants');
    await page.getByRole('link', { name: 'chatty' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deployments' }).click();
    await page.getByRole('heading', { name: 'API key needed' }).waitFor();
    await page.locator('main').getByLabel('API key', { exact: true }).fill(server.key);
    await page.locator('main').getByRole('button', { name: 'Use key' }).click();
    await page.getByText('No deployments').or(page.locator('tbody tr').first()).waitFor();
    await page.reload();
    await page.getByText(/API key set/).waitFor();
    await page.getByRole('link', { name: 'Assistants' }).click();
    await page.getByRole('link', { name: 'chatty' }).waitFor();
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('assets are served from the build with long caching; unknown dashboard paths get the app', async () => {
    const html = await (await fetch(server.url + '/dashboard/threads/nope')).text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(script, html);
    const res = await fetch(server.url + script);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /javascript/);
    assert.match(res.headers.get('cache-control') ?? '', /immutable/);
    assert.equal((await fetch(server.url + '/dashboard/assets/missing.js')).status, 404);
  });

  test('mock mode serves the dashboard too', async () => {
    const mock = await startTestServer({ mock: true, dataDir: null });
    try {
      const page = await openPage(browser, mock.url + '/dashboard/deployments', { key: mock.key });
      await page.locator('tbody tr a').first().waitFor();
      // it says it is a mock, on every page
      await page.getByRole('status').filter({ hasText: 'Mock mode' }).waitFor();
      // a thread page renders the examples without throwing
      await page.goto(mock.url + '/dashboard/threads/6a8f2f02-0a5c-4b49-9d2c-1f0d8f6c6b7e');
      await page.getByRole('list', { name: 'Checkpoints, newest first' }).or(page.getByText('No checkpoints.')).waitFor();
      await page.getByRole('status').filter({ hasText: 'Mock mode' }).waitFor();
      // the chat keeps what was typed, whatever the example reply holds
      const assistants = await page.goto(mock.url + '/dashboard/assistants');
      assert.ok(assistants?.ok());
      await page.locator('tbody tr a').first().click();
      await page.getByLabel('Message', { exact: true }).fill('my own words');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':disabled')).waitFor();
      await page.locator('.chat .message-user', { hasText: 'my own words' }).waitFor();
      await page.locator('.chat-log .muted', { hasText: 'Streaming' }).waitFor({ state: 'detached' });
      assert.equal(await page.locator('.chat .message-user', { hasText: 'my own words' }).count(), 1);
      assert.deepEqual(pageErrors(page), []);
      await page.context().close();
    } finally {
      await mock.close();
    }
  });
});

describe('dashboard: control plane', () => {
  test('create a deployment in the form, see it reach DEPLOYED without reloading, patch and redeploy it', async () => {
    const page = await open('/dashboard/deployments');
    await markDocument(page);
    await fillCreateForm(page, githubFields('first-agent'));
    await page.waitForURL(/\/dashboard\/deployments\/[0-9a-f-]{36}$/);
    await page.locator('.revision .status', { hasText: 'DEPLOYED' }).waitFor();
    await page.locator('h1 .status', { hasText: 'READY' }).waitFor();
    assert.ok(await stillSameDocument(page), 'the page was reloaded');
    // secrets are shown masked, the URL as a link
    assert.match((await page.locator('dd a').first().getAttribute('href')) ?? '', /^http:\/\//);

    await page.getByRole('button', { name: 'Edit (patch)' }).click();
    // what cannot change is shown as it is, read-only
    assert.equal(await page.locator('#field-name').getAttribute('readonly'), '');
    assert.equal(await page.locator('#field-name').inputValue(), 'first-agent');
    assert.ok(await page.locator('#field-source').isDisabled());
    await page.locator('#field-source_revision_config-repo_ref').fill('release');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('.revision').nth(1).waitFor();
    await page.locator('.revision').first().locator('.status', { hasText: 'DEPLOYED' }).waitFor();
    await page.locator('.revision').nth(1).getByRole('button', { name: 'Redeploy' }).click();
    await page.locator('.revision').nth(2).waitFor();
    await page.locator('.revision').first().locator('.status', { hasText: 'DEPLOYED' }).waitFor();
    assert.ok(await stillSameDocument(page));
    // three revisions are readable on one 1280×800 screen
    const bottom = await page.locator('.timeline').evaluate((e) => e.getBoundingClientRect().bottom);
    assert.ok(bottom <= 800, `the revisions end at ${bottom}px`);
    await screenshot(page, 'deployment');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("a failing revision's reason is shown; delete asks for confirmation", async () => {
    const page = await open('/dashboard/deployments');
    await fillCreateForm(page, { ...githubFields('failing-agent'), 'source_config-build_command': 'npm run build && fail' });
    await page.locator('.revision .status', { hasText: 'BUILD_FAILED' }).waitFor();
    // its only revision failed: the header says so beside the record's own status, each named
    await page.locator('h1 .health', { hasText: /deployment\s*READY\s*latest revision\s*BUILD_FAILED/ }).waitFor();
    const reason = await page.locator('.revision .status-message').first().textContent();
    assert.match(reason ?? '', /build/i);
    // nothing answers at its URL: shown, but not as a link
    const url = page.locator('dt', { hasText: /^URL$/ }).locator('+ dd');
    await url.getByText('(not serving: no revision has deployed)').waitFor();
    assert.equal(await url.locator('a').count(), 0);
    // its build log tells what happened, the failure last; the server never started
    await page.locator('.revision').first().getByRole('button', { name: 'Logs' }).click();
    const log = page.getByLabel('Log lines');
    await log.filter({ hasText: 'ERROR' }).waitFor();
    assert.match((await log.textContent()) ?? '', /Fetching https:\/\/github\.com\/acme\/agent at main[\s\S]*ERROR/);
    await screenshot(page, 'revision-logs');
    // the list shows the same: the deployment's status and its latest revision's, each in its column
    const list = await open('/dashboard/deployments?name_contains=failing-agent');
    const row = list.locator('tbody tr', { hasText: 'failing-agent' });
    await row.locator('td').nth(1).locator('.status', { hasText: 'READY' }).waitFor();
    await row.locator('td').nth(2).locator('.status', { hasText: 'BUILD_FAILED' }).waitFor();
    // the table is drawn once the list has loaded: its head is read after the row is there
    assert.deepEqual(
      await list
        .locator('thead th')
        .allTextContents()
        .then((h) => h.slice(1, 3)),
      ['Deployment status', 'Latest revision'],
    );
    // the filter says which status it filters: READY lists the row, whose READY is in the column the filter names
    await list.getByLabel('Deployment status').selectOption('READY');
    await list.getByRole('button', { name: 'Filter' }).click();
    await list.waitForURL(/status=READY/);
    await row.locator('td').nth(1).locator('.status', { hasText: 'READY' }).waitFor();
    await screenshot(list, 'deployments-statuses');
    assert.deepEqual(pageErrors(list), []);
    await list.context().close();
    await page.getByRole('tab', { name: 'Server log' }).click();
    await log.filter({ hasText: '(empty)' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').at(-1);
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await page.waitForURL('**/dashboard/deployments');
    // deleted: soft-deleted until cleanup, then gone
    const after = await server.api(`/v2/deployments/${id}`);
    assert.ok(after.status === 404 || ((await after.json()) as { status: string }).status === 'AWAITING_DELETE', `status ${after.status}`);
    await page.context().close();
  });

  test('the 422 of an invalid create form is shown next to its field', async () => {
    const page = await open('/dashboard/deployments');
    await fillCreateForm(page, { ...githubFields('not a valid name!') });
    const error = page.locator('#field-name-error');
    await error.waitFor();
    // said in words, not as the regular expression
    const said = (await error.textContent()) ?? '';
    assert.match(said, /^Name may contain only letters, digits/);
    assert.doesNotMatch(said, /\^\[|\]\*\$/);
    assert.equal(await page.locator('#field-name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#field-name').getAttribute('aria-describedby'), 'field-name-hint field-name-error');
    // shown once, next to its field, not again in the form's summary
    assert.equal(await page.locator('.schema-form .error').count(), 0);
    // labels people read, defaults said, hints whole
    await page.getByLabel('Repo URL').waitFor();
    assert.equal(await page.locator('label[for="field-source_revision_config-graph_config_path"]').textContent(), 'Graph config path');
    assert.match((await page.locator('#field-source_revision_config-graph_config_path-hint').textContent()) ?? '', /e\.g\. langgraph\.json\.$/);
    assert.equal(await page.locator('#field-source_config-deployment_type option').first().textContent(), '(default: dev)');
    // only the chosen source's fields
    assert.equal(await page.locator('#field-source_revision_config-image_uri').count(), 0);
    await page.locator('#field-source').selectOption('external_docker');
    await page.locator('#field-source_revision_config-image_uri').waitFor();
    assert.equal(await page.locator('#field-source_config-repo_url').count(), 0);
    assert.equal(await page.locator('#field-source_revision_config-repo_ref').count(), 0);
    await page.locator('#field-source').selectOption('github');
    await page.locator('#field-name').scrollIntoViewIfNeeded();
    await screenshot(page, 'create-form');
    // a rule between fields (400: github needs repo_url) is shown above the buttons
    await page.locator('#field-name').fill('rule-breaker');
    await page.locator('#field-source_config-repo_url').fill('');
    await page.getByRole('button', { name: 'Create deployment' }).click();
    await page.locator('.schema-form .error[role=alert]', { hasText: 'repo_url' }).waitFor();
    assert.equal(await page.locator('#field-name-error').count(), 0);
    await page.context().close();
  });

  test('the deployments list filters by name, status and type, and pages', async () => {
    await Promise.all(
      Array.from({ length: 23 }, (_, i) =>
        server.api('/v2/deployments', {
          method: 'POST',
          json: {
            name: `listed-${String(i).padStart(2, '0')}`,
            source: 'external_docker',
            source_config: { deployment_type: i % 2 ? 'prod' : 'dev' },
            source_revision_config: { image_uri: 'registry.example/agent:1' },
          },
        }),
      ),
    );
    const page = await open('/dashboard/deployments?name_contains=listed');
    await page.locator('tbody tr').nth(19).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 20);
    await screenshot(page, 'deployments');
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.waitForURL(/offset=20/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 3);
    await page.getByLabel('Name contains').fill('listed-07');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.getByLabel('Name contains').fill('listed');
    await page.getByLabel('Type').selectOption('prod');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/deployment_type=prod/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 11);
    // an image deployment's build log talks about its image, not about a repository
    await page.locator('tbody tr a').first().click();
    await page.locator('.revision .status', { hasText: 'DEPLOYED' }).waitFor();
    await page.locator('.revision').first().getByRole('button', { name: 'Logs' }).click();
    const log = page.getByLabel('Log lines');
    await log.filter({ hasText: 'Pulling the image registry.example/agent:1' }).waitFor();
    assert.doesNotMatch((await log.textContent()) ?? '', /Fetching|repository/);
    await page.context().close();
  });

  test('OAuth providers: create and edit through forms from the spec', async () => {
    const page = await open('/dashboard/providers');
    await page.getByRole('button', { name: 'New provider' }).click();
    for (const [field, value] of Object.entries({
      provider_id: 'acme-sso',
      name: 'Acme SSO',
      client_id: 'client-1',
      client_secret: 's3cret',
      auth_url: 'https://sso.acme.example/authorize',
      token_url: 'https://sso.acme.example/token',
    }))
      await page.locator(`#field-${field}`).fill(value);
    await page.getByRole('button', { name: 'Create provider' }).click();
    await page.getByRole('cell', { name: 'Acme SSO' }).waitFor();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.locator('#field-name').fill('Acme single sign-on');
    await page.getByRole('button', { name: 'Save provider' }).click();
    await page.getByRole('cell', { name: 'Acme single sign-on' }).waitFor();
    await screenshot(page, 'providers');
    await page.context().close();
  });
});

describe('dashboard: agent server', () => {
  test("an assistant's graph is drawn; chat with it: the reply streams token by token; an interrupt is resumed from its form", async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'chatty' }).click();
    // its graph, drawn from GET /assistants/{id}/graph, readable on one 1280×800 screen
    const graph = page.getByRole('img', { name: /^Graph with/ });
    await graph.waitFor();
    const nodes = await graph.locator('.node text').allTextContents();
    assert.deepEqual([...nodes].sort(), ['__end__', '__start__', 'approve', 'read', 'reply']);
    assert.equal(await graph.locator('.edge.conditional').count(), 2);
    const box = (await graph.boundingBox())!;
    assert.ok(box.y + box.height <= 800 && box.x + box.width <= 1280, JSON.stringify(box));
    // record every text the reply shows while it streams
    await page.evaluate(() => {
      const seen: string[] = (window.__seen = []);
      new window.MutationObserver(() => {
        const last = [...document.querySelectorAll('.chat .message-ai .content')].at(-1)?.textContent;
        if (last && seen.at(-1) !== last) seen.push(last);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByLabel('Message', { exact: true }).fill('hello there friend');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const final = 'You said: hello there friend. That makes 3 words.';
    await page.locator('.chat .message-ai', { hasText: final }).waitFor();
    const seen = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
    const partial = seen.filter((text) => text !== final && final.startsWith(text));
    assert.ok(partial.length >= 5, `the reply appeared in ${seen.length} steps: ${JSON.stringify(seen)}`);
    // the last bubble is not clipped: the conversation is scrolled to show all of it
    await page.getByLabel('Message', { exact: true }).fill('and a third message to make the log longer than its box, with more words');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.chat .message-ai', { hasText: 'with more words. That makes' }).waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':disabled')).waitFor();
    await page.waitForFunction(() => {
      const log = document.querySelector('.chat-log')!.getBoundingClientRect();
      const last = [...document.querySelectorAll('.chat .message')].at(-1)!.getBoundingClientRect();
      return last.bottom <= log.bottom + 1 && last.top >= log.top - 1;
    });
    await screenshot(page, 'assistant');

    await page.getByLabel('Message', { exact: true }).fill('please approve this');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('The run is waiting for input.').waitFor();
    await page.getByLabel('Resume with (text or JSON)').fill('granted');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('.chat .message-ai', { hasText: 'Approval: granted.' }).waitFor();
    await page.locator('.chat .message-ai', { hasText: 'You said: please approve this.' }).waitFor();
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("the tool-calling agent's loop tools → agent is drawn clear of __end__", async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'agent', exact: true }).click();
    const graph = page.getByRole('img', { name: /^Graph with/ });
    await graph.waitFor();
    const loop = (await graph.locator('[data-edge="tools->agent"]').boundingBox())!;
    const end = (await graph.locator('.node', { hasText: '__end__' }).boundingBox())!;
    const tools = (await graph.locator('.node', { hasText: 'tools' }).boundingBox())!;
    const overlaps = loop.x < end.x + end.width && end.x < loop.x + loop.width && loop.y < end.y + end.height && end.y < loop.y + loop.height;
    assert.ok(!overlaps, `loop ${JSON.stringify(loop)} crosses __end__ ${JSON.stringify(end)}`);
    assert.ok(end.y > tools.y + tools.height, '__end__ is below tools');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("interrupts: the shipped approval graph's HITL request (action_requests / review_configs) is approved from the chat with an edited argument, and the run finishes", async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'approval', exact: true }).click();
    await page.getByLabel('Message', { exact: true }).fill('email bob about lunch');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    const request = page.getByRole('region', { name: 'The run asks for a decision' });
    await request.getByText('Send this email to bob@example.com?').waitFor();
    assert.equal(await request.getByLabel('subject').inputValue(), 'lunch');
    // unchanged it can be approved; edited, it is approved with the edits (an `edit` decision)
    await request.getByRole('button', { name: 'Approve', exact: true }).waitFor();
    await request.getByLabel('subject').fill('lunch on friday');
    await screenshot(page, 'interrupt');
    await request.getByRole('button', { name: 'Approve with edits' }).click();
    await page.locator('.chat .message-ai', { hasText: 'Sent to bob@example.com: "lunch on friday".' }).waitFor();
    await request.waitFor({ state: 'detached' });
    const threadId = new URL((await page.locator('.chat-head a').getAttribute('href'))!, server.url).pathname.split('/').at(-1);
    const state = (await (await server.api(`/threads/${threadId}/state`)).json()) as { next: string[]; tasks: unknown[] };
    assert.deepEqual(state.next, [], 'the run finished');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("the shipped approval graph's run settings are forms drawn from its context schema (enum, number, boolean, string with a default), and a run from the chat takes them", async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'approval', exact: true }).click();
    const settings = page.getByRole('region', { name: 'Run settings' });
    const context = settings.getByRole('form', { name: 'Run context' });
    const priority = context.getByLabel(/^Priority/);
    // the form is drawn once the schemas have loaded: read its options only after it is there
    // (read at once, before GET /assistants/{id}/schemas answered, it had none)
    await priority.waitFor();
    assert.deepEqual((await priority.locator('option').allTextContents()).slice(1), ['low', 'normal', 'high']);
    assert.equal(await context.getByLabel(/^Greeting/).getAttribute('placeholder'), 'default: Hello');
    assert.deepEqual(
      (
        await context
          .getByLabel(/^Ask first/)
          .locator('option')
          .allTextContents()
      ).slice(1),
      ['true', 'false'],
    );
    await context.getByLabel(/^Max words/).waitFor();
    // the configurable values get the same form (folded: the graph reads its context)
    await settings.getByText('Configurable form').click();
    await settings
      .getByRole('form', { name: 'Run configurable' })
      .getByLabel(/^Priority/)
      .waitFor();
    await screenshot(page, 'run-settings-form');
    await priority.selectOption('high');
    await context.getByLabel(/^Ask first/).selectOption('false');
    await settings.getByText('In force: context priority, ask_first.').waitFor();
    await page.getByLabel('Message', { exact: true }).fill('email bob about lunch');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    // not asked first: sent at once, marked urgent
    await page.locator('.chat .message-ai', { hasText: 'Sent to bob@example.com: "[urgent] lunch".' }).waitFor();
    assert.equal(await page.getByRole('region', { name: 'The run asks for a decision' }).count(), 0);
    const threadId = new URL((await page.locator('.chat-head a').getAttribute('href'))!, server.url).pathname.split('/').at(-1);
    const [run] = (await (await server.api(`/threads/${threadId}/runs`)).json()) as { kwargs: Record<string, any> }[];
    assert.deepEqual(run.kwargs.context, { priority: 'high', ask_first: false });
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('interrupts on the thread page: a HITL request rejected with a reason, a breakpoint continued', async () => {
    const start = async (assistant: string, text: string) => {
      const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
      await server.api(`/threads/${thread.thread_id}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: assistant, input: { messages: [{ role: 'user', content: text }] } },
      });
      return thread.thread_id;
    };
    const asked = await start('approval', 'email carol about the budget');
    const page = await open(`/dashboard/threads/${asked}`);
    await page.locator('h1 .status', { hasText: 'interrupted' }).waitFor();
    const request = page.getByRole('region', { name: 'The run asks for a decision' });
    await request.getByLabel('Reject, with a reason (optional)').fill('not before Monday');
    await request.getByRole('button', { name: 'Reject' }).click();
    await page.locator('.message-ai', { hasText: 'Not sent. Your note: not before Monday' }).waitFor();
    await page.locator('h1 .status', { hasText: 'idle' }).waitFor();

    const paused = await start('breakpoint', 'email ann about the report');
    await page.goto(`${server.url}/dashboard/threads/${paused}`);
    const breakpoint = page.getByRole('region', { name: 'Paused at a breakpoint' });
    await breakpoint.getByText('Paused before send').waitFor();
    await screenshot(page, 'thread-breakpoint');
    await breakpoint.getByRole('button', { name: 'Continue' }).click();
    await page.locator('.message-ai', { hasText: 'Sent to ann@example.com: "the report".' }).waitFor();
    await breakpoint.waitFor({ state: 'detached' });
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('a thread says why it stopped: a failed run shows its error (no breakpoint), an edited state is ready to run', async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    await server.api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'failing', input: { messages: [{ role: 'user', content: 'what now?' }] } },
    });
    const page = await open(`/dashboard/threads/${thread.thread_id}`);
    await page.locator('h1 .status', { hasText: 'error' }).waitFor();
    const failed = page.getByRole('alert', { name: 'The last run failed' });
    await failed.getByText('The last run failed in answer.').waitFor();
    await failed.getByText('the model is unavailable (503)').waitFor();
    // the error names the run that failed, whose page has its trace
    const runLink = failed.getByRole('link', { name: 'See the run and its trace' });
    assert.match((await runLink.getAttribute('href')) ?? '', new RegExp(`^/dashboard/threads/${thread.thread_id}/runs/[0-9a-f-]{36}$`));
    assert.equal(await page.getByRole('region', { name: 'Paused at a breakpoint' }).count(), 0);
    await failed.getByRole('button', { name: 'Retry from answer' }).waitFor();
    // the runs name their assistant, not its id's tail
    await page.getByRole('table').getByRole('link', { name: 'failing', exact: true }).waitFor();
    await screenshot(page, 'thread-failed');

    // a state written from outside as `read` (as Studio's edit does) runs `answer` next: ready, not a breakpoint
    await server.api(`/threads/${thread.thread_id}/state`, {
      method: 'POST',
      json: { values: { messages: [{ role: 'user', content: 'try again' }] }, as_node: 'read' },
    });
    await page.reload();
    const ready = page.getByRole('region', { name: 'Ready to run from here' });
    await ready.getByText('answer runs next').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Paused at a breakpoint' }).count(), 0);
    assert.equal(await page.getByRole('alert', { name: 'The last run failed' }).count(), 0);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('history: re-run from a checkpoint, and edit the state at one and re-run: each a new branch', async () => {
    // an assistant of its own: the threads test counts the greeter's threads
    const assistant = (await (await server.api('/assistants', { method: 'POST', json: { graph_id: 'greeter', name: 'rerun greeter' } })).json()) as {
      assistant_id: string;
    };
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    await server.api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: assistant.assistant_id, input: { messages: [{ role: 'user', content: 'first words' }] } },
    });
    const messagesNow = async () =>
      ((await (await server.api(`/threads/${thread.thread_id}/state`)).json()) as { values: { messages: { content: string }[] } }).values.messages.map(
        (m) => m.content,
      );
    const page = await open(`/dashboard/threads/${thread.thread_id}`);
    const history = page.getByRole('list', { name: 'Checkpoints, newest first' });
    const pickBeforeGreet = () =>
      history
        .getByRole('button', { name: /next greet/ })
        .first()
        .click();
    const then = page.getByRole('region', { name: 'State at the picked checkpoint' });

    // as it was: greet runs again from the checkpoint before it
    await pickBeforeGreet();
    await then.getByText('From here greet runs next.').waitFor();
    await then.getByRole('button', { name: 'Re-run from here' }).click();
    await history
      .getByText(/branches off step/)
      .first()
      .waitFor();
    assert.deepEqual(await messagesNow(), ['first words', 'Hello, first words']);

    // edited: the user's message rewritten at that checkpoint, then greet runs on the edit
    await pickBeforeGreet();
    await then.getByRole('button', { name: 'Edit state here' }).click();
    const values = then.getByLabel(/State at this checkpoint/);
    await values.fill(((await values.inputValue()) ?? '').replace('first words', 'edited words'));
    await then.getByRole('button', { name: 'Save and re-run' }).click();
    await page.locator('.message-ai', { hasText: 'Hello, edited words' }).first().waitFor();
    assert.deepEqual(await messagesNow(), ['edited words', 'Hello, edited words']);
    // the branches are in the history, the first run's answer among them
    const all = (await (await server.api(`/threads/${thread.thread_id}/history`, { method: 'POST', json: { limit: 50 } })).json()) as {
      values: { messages?: { content: string }[] };
    }[];
    const answers = new Set(all.flatMap((h) => (h.values.messages ?? []).map((m) => m.content)).filter((c) => c.startsWith('Hello')));
    assert.deepEqual([...answers].sort(), ['Hello, edited words', 'Hello, first words']);
    await screenshot(page, 'thread-rerun');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("an inbox request in last year's shape (action_request, config.allow_*) still gets its buttons; its Markdown description is formatted; what the user wrote in it stays text", async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    const hostile = '<img src=x onerror="window.__owned=1"> [click](javascript:window.__owned=2)';
    await server.api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'reviewer', input: { messages: [{ role: 'user', content: hostile }] } },
    });
    const page = await open(`/dashboard/threads/${thread.thread_id}`);
    const request = page.getByRole('region', { name: 'The run asks for a decision' });
    const description = request.locator('.inbox-description');
    await description.locator('strong', { hasText: 'Publish this post?' }).waitFor();
    assert.equal(await description.locator('li').count(), 2);
    assert.equal(await description.locator('em', { hasText: 'the user' }).count(), 1);
    const guidelines = description.getByRole('link', { name: 'the guidelines' });
    assert.equal(await guidelines.getAttribute('href'), 'https://example.com/guidelines');
    assert.equal(await guidelines.getAttribute('target'), '_blank');
    // the user's text: its tag shown as text, its javascript: link not a link, nothing ran
    await description.locator('blockquote', { hasText: '<img src=x onerror=' }).waitFor();
    assert.equal(await description.locator('img').count(), 0);
    assert.equal(await description.locator('a[href^="javascript"]').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned), undefined);
    await request.getByRole('button', { name: 'Accept' }).click();
    await page.locator('.message-ai', { hasText: 'review: accept' }).waitFor();
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('a graph whose input is not a chat runs from a form generated from its input schema', async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'pricer', exact: true }).click();
    const form = page.getByRole('form', { name: 'Graph input' });
    await form.getByLabel(/^Item/).fill('coffee');
    await form.getByLabel(/^Quantity/).fill('4');
    await form.getByRole('button', { name: 'Run' }).click();
    const output = page.getByRole('region', { name: 'Run output' });
    await output.getByText('4 × coffee = 10.00 EUR').waitFor();
    // an order is not a conversation: no chat beside the form
    assert.equal(await page.getByRole('heading', { name: 'Chat' }).count(), 0);
    // the run's thread is linked, and holds the same state
    const href = (await output.getByRole('link').getAttribute('href'))!;
    const state = (await (await server.api(`/threads/${href.split('/').at(-1)}/state`)).json()) as { values: Record<string, unknown> };
    assert.deepEqual(state.values, { item: 'coffee', quantity: 4, total: '4 × coffee = 10.00 EUR' });
    await output.scrollIntoViewIfNeeded();
    await screenshot(page, 'assistant-input-form');
    // the same input as raw JSON, sent as it is
    await page.getByText('Input as JSON').click();
    await page.getByLabel('Input (JSON, sent as it is)').fill('{"item": "tea", "quantity": 2}');
    await page.getByRole('button', { name: 'Run with this input' }).click();
    await output.getByText('2 × tea = 5.00 EUR').waitFor();
    // a chat graph (messages only) shows no such form
    await page.goto(`${server.url}/dashboard/assistants`);
    await page.getByRole('link', { name: 'greeter', exact: true }).click();
    await page.getByRole('heading', { name: 'Chat' }).waitFor();
    assert.equal(await page.getByRole('form', { name: 'Graph input' }).count(), 0);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("an assistant's A2A agent card and a message sent through the A2A box", async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'echo' }).click();
    await page
      .getByRole('table', { name: /A2A versions and bindings served/ })
      .getByRole('cell', { name: 'HTTP+JSON' })
      .waitFor();
    await page.locator('#a2a-text').fill('ping over a2a');
    await page.getByRole('button', { name: 'Send (message/send)' }).click();
    await page.locator('.a2a-reply', { hasText: 'ping over a2a' }).waitFor();
    // the reply's text is shown once (a task carries it as status message and as artifact)
    const shown = (await page.locator('.a2a-reply > p').textContent()) ?? '';
    assert.equal(shown.split('ping over a2a').length - 1, 1, shown);
    await page.context().close();
  });

  test("a thread's history: pick an earlier checkpoint, see the state then, fork a new run from it", async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    for (const words of ['first words', 'second words']) {
      await server.api(`/threads/${thread.thread_id}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: words }] } },
      });
    }
    const page = await open(`/dashboard/threads/${thread.thread_id}`);
    const history = page.getByRole('list', { name: 'Checkpoints, newest first' });
    await history.locator('li').nth(1).waitFor();
    // the whole history of a small thread is on one 1280×800 screen
    const bottom = await history.evaluate((e) => e.getBoundingClientRect().bottom + window.scrollY);
    assert.ok(bottom <= 800, `the history ends at ${bottom}px`);
    // after the first run the thread held two messages: that checkpoint shows them, not what came later
    assert.ok(await history.getByRole('button', { name: /\b1 message\b/ }).count(), 'one message is "1 message"');
    assert.equal(await history.getByText(/msgs/).count(), 0);
    await history
      .getByRole('button', { name: /2 messages/ })
      .first()
      .click();
    const then = page.getByRole('region', { name: 'State at the picked checkpoint' });
    await then.getByText('first words').first().waitFor();
    assert.doesNotMatch((await then.getByLabel('Messages at this checkpoint').textContent()) ?? '', /second words/);
    await screenshot(page, 'thread-history');
    // an empty fork says why nothing happened
    await then.getByRole('button', { name: 'Fork' }).click();
    await then.getByRole('alert').filter({ hasText: 'Type the message the fork sends' }).waitFor();
    assert.equal(await then.getByLabel('Fork: send from here').getAttribute('aria-invalid'), 'true');
    // fork from it: the thread goes on from that checkpoint, without the second exchange
    await then.getByLabel('Fork: send from here').fill('other words');
    await then.getByRole('button', { name: 'Fork' }).click();
    await page.locator('.message-ai', { hasText: 'other words' }).first().waitFor();
    // the history is a tree now: the fork's checkpoints are a branch, said with their step, and distinct
    await history.getByText(/branches off step \d+\.1/).waitFor();
    const steps = await history.locator('.step').allTextContents();
    assert.equal(new Set(steps).size, steps.length, `step labels repeat: ${steps.join(' | ')}`);
    await screenshot(page, 'thread-fork');
    const state = (await (await server.api(`/threads/${thread.thread_id}/state`)).json()) as { values: { messages: { content: string }[] } };
    assert.deepEqual(
      state.values.messages.map((m) => m.content),
      ['first words', 'first words', 'other words', 'other words'],
    );
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('threads: search and a thread page with its messages, state and runs', async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: { metadata: { team: 'dashboard' } } })).json()) as { thread_id: string };
    await server.api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'first words' }] } },
    });
    await server.api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'second words' }] } },
    });
    const page = await open('/dashboard/threads');
    await page.getByLabel('Metadata').fill('team=dashboard');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await screenshot(page, 'threads');
    await page.locator('tbody tr a[href^="/dashboard/threads/"]').click();
    await page.locator('.message-ai', { hasText: 'second words' }).waitFor();
    await page.locator('tbody .status', { hasText: 'success' }).nth(1).waitFor();
    await screenshot(page, 'thread');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });
});

describe('dashboard: management pages', () => {
  test('store: an item is created in the form, found by search, edited and deleted', async () => {
    await server.api('/store/items', { method: 'PUT', json: { namespace: ['users', 'bob'], key: 'prefs', value: { colour: 'green' } } });
    const page = await open('/dashboard/store');
    await page.getByRole('list', { name: 'Namespaces' }).getByRole('button', { name: 'users/bob' }).waitFor();
    const form = page.getByRole('form', { name: 'New item' });
    await form.getByLabel('Namespace').fill('users/alice');
    await form.getByLabel('Key').fill('profile');
    await form.getByLabel('Value (JSON object)').fill('{"colour": "blue", "city": "Lyon"}');
    await form.getByRole('button', { name: 'Create item' }).click();
    const found = page.getByRole('list', { name: 'Items found' });
    await found.locator('.store-item', { hasText: 'profile' }).waitFor();
    // search by a value field, across every namespace
    await page.getByLabel('Namespace prefix').fill('users');
    await page.getByRole('textbox', { name: 'Search' }).fill('colour=blue');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL(/q=colour/);
    await page.waitForFunction(() => document.querySelectorAll('.store-item').length === 1);
    assert.match((await found.textContent()) ?? '', /users\/alice[\s\S]*profile[\s\S]*Lyon/);
    await screenshot(page, 'store');
    // edit its value, then delete it
    await found.getByRole('button', { name: 'Edit' }).click();
    await found.getByLabel('Value (JSON object)').fill('{"colour": "blue", "city": "Paris"}');
    await found.getByRole('button', { name: 'Save value' }).click();
    await found.getByText('"Paris"').waitFor();
    const stored = (await (await server.api('/store/items?namespace=users.alice&key=profile')).json()) as { value: unknown };
    assert.deepEqual(stored.value, { colour: 'blue', city: 'Paris' });
    await found.getByRole('button', { name: 'Delete' }).click();
    await found.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByText('No items found.').waitFor();
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("assistants: one is created, its context edited in the form generated from the graph's context_schema, the next run sees it; versions, set latest, delete", async () => {
    const page = await open('/dashboard/assistants');
    const create = page.getByRole('form', { name: 'New assistant' });
    await create.getByLabel('Graph').selectOption('greeter');
    await create.getByLabel('Name').fill('french greeter');
    await create.getByRole('button', { name: 'Create assistant' }).click();
    await page.locator('h1', { hasText: 'french greeter' }).waitFor();
    const assistantId = new URL(page.url()).pathname.split('/').at(-1)!;
    // the form comes from the schema: a text field and a choice, with their defaults said
    const form = page.getByRole('form', { name: 'Assistant context' });
    assert.equal(await form.getByLabel('Greeting').getAttribute('placeholder'), 'default: Hello');
    await form.getByLabel('Greeting').fill('Bonjour');
    await form.getByLabel('Tone').selectOption('warm');
    await form.getByRole('button', { name: 'Save context (new version)' }).click();
    const versions = page.getByRole('list', { name: 'Versions, newest first' });
    await versions.locator('li', { hasText: 'v2' }).locator('.tag', { hasText: 'latest' }).waitFor();
    // the next run has that context
    await page.getByLabel('Message', { exact: true }).fill('Ana');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.chat .message-ai', { hasText: 'Bonjour, Ana :)' }).waitFor();
    await screenshot(page, 'assistant-settings');
    // back to version 1: its context (none) again
    await versions.getByRole('button', { name: 'Set v1 latest' }).click();
    await versions.locator('li', { hasText: 'v1' }).locator('.tag', { hasText: 'latest' }).waitFor();
    const after = (await (await server.api(`/assistants/${assistantId}`)).json()) as { version: number; context: unknown };
    assert.equal(after.version, 1);
    await page.getByRole('button', { name: 'Delete assistant' }).click();
    await page.getByRole('button', { name: 'Yes, delete assistant' }).click();
    await page.waitForURL('**/dashboard/assistants');
    assert.equal((await server.api(`/assistants/${assistantId}`)).status, 404);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test("threads: the list shows each thread's first message and filters by assistant and status; a thread's state is written as a node", async () => {
    const run = async (assistant: string, text: string) => {
      const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
      await server.api(`/threads/${thread.thread_id}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: assistant, input: { messages: [{ role: 'user', content: text }] } },
      });
      return thread.thread_id;
    };
    const greeted = await run('greeter', 'a greeter thread');
    await run('echo', 'an echo thread');
    const page = await open('/dashboard/threads');
    await page.getByLabel('Assistant').locator('option', { hasText: 'greeter' }).first().waitFor({ state: 'attached' });
    await page.getByLabel('Assistant').selectOption({ label: 'greeter' });
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/assistant=/);
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.equal(await page.locator('tbody td.first-message').textContent(), 'a greeter thread');
    // the row names its assistant
    await page.locator('tbody tr').getByRole('link', { name: 'greeter', exact: true }).waitFor();
    await page.getByLabel('Status').selectOption('interrupted');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No threads.').waitFor();
    await page.getByLabel('Status').selectOption('idle');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await page.locator('tbody tr a[href^="/dashboard/threads/"]').click();
    await page.waitForURL(`**/dashboard/threads/${greeted}`);
    await page.getByRole('button', { name: 'Edit state' }).click();
    const form = page.getByRole('form', { name: 'Edit state' });
    await form.getByLabel(/^Values to write/).fill('{"messages": [{"type": "ai", "content": "written by hand"}]}');
    await form.getByLabel(/^As node/).fill('greet');
    await form.getByRole('button', { name: 'Update state' }).click();
    await page.locator('.message-ai', { hasText: 'written by hand' }).first().waitFor();
    const history = (await (await server.api(`/threads/${greeted}/history`, { method: 'POST', json: { limit: 1 } })).json()) as {
      metadata: { source: string };
      next: string[];
      values: { messages: { content: string }[] };
    }[];
    assert.equal(history[0].metadata.source, 'update');
    // written as greet (which leads to the end): nothing is left to run
    assert.deepEqual(history[0].next, []);
    assert.equal(history[0].values.messages.at(-1)?.content, 'written by hand');
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });

  test('crons: a schedule picked shows its next fire times, the cron is created, its run appears; delete removes it', async () => {
    const page = await open('/dashboard/crons');
    const form = page.getByRole('form', { name: 'New cron' });
    await form.getByLabel('Assistant').selectOption({ label: 'echo' });
    await form.getByLabel('Schedule (cron', { exact: false }).fill('not a schedule');
    await form.getByText(/^Not a schedule: /).waitFor();
    assert.ok(await form.getByRole('button', { name: 'Create cron' }).isDisabled());
    await form.getByLabel('Repeat').selectOption({ label: 'Every 10 seconds' });
    const next = form.getByRole('list', { name: 'Next fire times' });
    await next.locator('li').nth(2).waitFor();
    const times = await next.locator('time').evaluateAll((els) => els.map((e) => Date.parse(e.getAttribute('datetime'))));
    assert.deepEqual(
      times.slice(1).map((t, i) => t - times[i]),
      [10_000, 10_000],
      'ten seconds apart',
    );
    await form.getByLabel('Message each run sends (optional)').fill('tick from a cron');
    await form.getByRole('button', { name: 'Create cron' }).click();
    const cron = page.getByRole('list', { name: 'Crons' }).locator('.cron', { hasText: '*/10 * * * * *' });
    // its first run within ten seconds (and a loaded machine's slack)
    await cron.locator('.cron-runs .status', { hasText: 'success' }).first().waitFor({ timeout: 60_000 });
    await screenshot(page, 'crons');
    // the cron names its assistant; its thread's link opens the thread
    await cron.getByRole('link', { name: 'echo', exact: true }).waitFor();
    await cron.locator('a[href^="/dashboard/threads/"]').click();
    await page.locator('.message-ai', { hasText: 'tick from a cron' }).first().waitFor();
    await page.goBack();
    await cron.getByRole('button', { name: 'Delete' }).click();
    await cron.getByRole('button', { name: 'Yes, delete' }).click();
    await cron.waitFor({ state: 'detached' });
    const left = (await (await server.api('/runs/crons/search', { method: 'POST', json: {} })).json()) as unknown[];
    assert.equal(left.length, 0);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });
});

describe('dashboard: accessible and plain', () => {
  test('keyboard: a skip link first, then the navigation, and Enter follows a link', async () => {
    const page = await open('/dashboard/deployments');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Assistants');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard/threads');
    await page.context().close();
  });

  test('a narrow window needs no sideways scrolling of the page', async () => {
    const page = await open('/dashboard/deployments', { width: 400, height: 800 });
    await page.locator('h1').waitFor();
    // a page of each kind too: an assistant (graph, chat, settings), a thread, a deployment
    const [assistant] = (await (await server.api('/assistants/search', { method: 'POST', json: { graph_id: 'chatty' } })).json()) as { assistant_id: string }[];
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    await server.api(`/threads/${thread.thread_id}/runs/wait`, {
      method: 'POST',
      json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'narrow' }] } },
    });
    const [run] = (await (await server.api(`/threads/${thread.thread_id}/runs`)).json()) as { run_id: string }[];
    const deployment = (await (
      await server.api('/v2/deployments', {
        method: 'POST',
        json: { name: 'narrow-one', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'registry.example/agent:1' } },
      })
    ).json()) as { id: string };
    const pages = [
      `/dashboard/assistants/${assistant.assistant_id}`,
      `/dashboard/threads/${thread.thread_id}`,
      `/dashboard/threads/${thread.thread_id}/runs/${run.run_id}`,
      `/dashboard/deployments/${deployment.id}`,
    ];
    for (const path of [
      '/dashboard/deployments',
      '/dashboard/deployments/new',
      '/dashboard/providers',
      '/dashboard/assistants',
      '/dashboard/threads',
      '/dashboard/store',
      '/dashboard/crons',
      ...pages,
    ]) {
      await page.goto(server.url + path);
      await page.locator('h1').waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} is ${overflow}px too wide`);
    }
    await page.context().close();
  });
});
