// The web dashboard in a real browser (Debian's Chromium through playwright-core) against a
// real agentplane on loopback: control-plane pages and forms, the live revision timeline,
// the agent-server pages and the streaming chat. Screenshots: see browser.ts.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.ts';
import { buildDashboard, launchBrowser, openPage, pageErrors, screenshot } from '../dashboard/browser.ts';

// callbacks of page.evaluate run in the browser; this program is typed without the DOM library
declare const document: any;
declare const window: any;

const project = {
  graphs: {
    echo: './examples/graphs/echo.ts:echo',
    agent: './examples/graphs/agent.ts:agent',
    chatty: './test/fixtures/graphs/dashboard.ts:chatty',
  },
};

let server: TestServer;
let browser: Browser;

before(async () => {
  await buildDashboard();
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
  test('/ and the old /ui redirect to /dashboard, the API key is asked once and kept for the session', async () => {
    for (const old of ['/', '/ui', '/ui/']) {
      const res = await fetch(server.url + old, { redirect: 'manual' });
      assert.equal(res.status, 302, old);
      assert.equal(res.headers.get('location'), '/dashboard/', old);
    }
    const page = await open('/', { key: null });
    await page.waitForURL('**/dashboard/deployments');
    await page.getByText('This needs an API key').waitFor();
    await page.getByLabel('API key', { exact: true }).fill(server.key);
    await page.getByRole('button', { name: 'Use key' }).click();
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
    const reason = await page.locator('.revision .status-message').first().textContent();
    assert.match(reason ?? '', /build/i);
    // its build log tells what happened, the failure last; the server never started
    await page.locator('.revision').first().getByRole('button', { name: 'Logs' }).click();
    const log = page.getByLabel('Log lines');
    await log.filter({ hasText: 'ERROR' }).waitFor();
    assert.match((await log.textContent()) ?? '', /Fetching https:\/\/github\.com\/acme\/agent at main[\s\S]*ERROR/);
    await screenshot(page, 'revision-logs');
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
    assert.ok(((await error.textContent()) ?? '').length > 0);
    assert.equal(await page.locator('#field-name').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator('#field-name').getAttribute('aria-describedby'), 'field-name-hint field-name-error');
    // shown once, next to its field, not again in the form's summary
    assert.equal(await page.locator('.schema-form .error').count(), 0);
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
          json: { name: `listed-${String(i).padStart(2, '0')}`, source: 'external_docker', source_config: { deployment_type: i % 2 ? 'prod' : 'dev' }, source_revision_config: { image_uri: 'registry.example/agent:1' } },
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
    await page.context().close();
  });

  test('OAuth providers: create and edit through forms from the spec', async () => {
    const page = await open('/dashboard/providers');
    await page.getByRole('button', { name: 'New provider' }).click();
    for (const [field, value] of Object.entries({ provider_id: 'acme-sso', name: 'Acme SSO', client_id: 'client-1', client_secret: 's3cret', auth_url: 'https://sso.acme.example/authorize', token_url: 'https://sso.acme.example/token' }))
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
      new (window.MutationObserver)(() => {
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

  test("an assistant's A2A agent card and a message sent through the A2A box", async () => {
    const page = await open('/dashboard/assistants');
    await page.getByRole('link', { name: 'echo' }).click();
    await page.locator('dd', { hasText: '0.3.0' }).waitFor();
    await page.locator('#a2a-text').fill('ping over a2a');
    await page.getByRole('button', { name: 'Send (message/send)' }).click();
    await page.locator('.a2a-reply', { hasText: 'ping over a2a' }).waitFor();
    await page.context().close();
  });

  test("a thread's history: pick an earlier checkpoint, see the state then, fork a new run from it", async () => {
    const thread = (await (await server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
    for (const words of ['first words', 'second words']) {
      await server.api(`/threads/${thread.thread_id}/runs/wait`, { method: 'POST', json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: words }] } } });
    }
    const page = await open(`/dashboard/threads/${thread.thread_id}`);
    const history = page.getByRole('list', { name: 'Checkpoints, newest first' });
    await history.locator('li').nth(1).waitFor();
    // the whole history of a small thread is on one 1280×800 screen
    const bottom = await history.evaluate((e) => e.getBoundingClientRect().bottom + window.scrollY);
    assert.ok(bottom <= 800, `the history ends at ${bottom}px`);
    // after the first run the thread held two messages: that checkpoint shows them, not what came later
    await history.getByRole('button', { name: /2 msgs/ }).first().click();
    const then = page.getByRole('region', { name: 'State at the picked checkpoint' });
    await then.getByText('first words').first().waitFor();
    assert.doesNotMatch((await then.getByLabel('Messages at this checkpoint').textContent()) ?? '', /second words/);
    await screenshot(page, 'thread-history');
    // fork from it: the thread goes on from that checkpoint, without the second exchange
    await then.getByLabel('Fork: send from here').fill('other words');
    await then.getByRole('button', { name: 'Fork' }).click();
    await page.locator('.message-ai', { hasText: 'other words' }).first().waitFor();
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
    await server.api(`/threads/${thread.thread_id}/runs/wait`, { method: 'POST', json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'first words' }] } } });
    await server.api(`/threads/${thread.thread_id}/runs/wait`, { method: 'POST', json: { assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'second words' }] } } });
    const page = await open('/dashboard/threads');
    await page.getByLabel('Metadata').fill('team=dashboard');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    await screenshot(page, 'threads');
    await page.locator('tbody tr a').click();
    await page.locator('.message-ai', { hasText: 'second words' }).waitFor();
    await page.locator('tbody .status', { hasText: 'success' }).nth(1).waitFor();
    await screenshot(page, 'thread');
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
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Deployments');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL('**/dashboard/providers');
    await page.context().close();
  });

  test('a narrow window needs no sideways scrolling of the page', async () => {
    const page = await open('/dashboard/deployments', { width: 400, height: 800 });
    await page.locator('h1').waitFor();
    for (const path of ['/dashboard/deployments', '/dashboard/deployments/new', '/dashboard/assistants', '/dashboard/threads']) {
      await page.goto(server.url + path);
      await page.locator('h1').waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${path} is ${overflow}px too wide`);
    }
    await page.context().close();
  });
});
