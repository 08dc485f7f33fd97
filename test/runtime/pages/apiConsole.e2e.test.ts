// The API console at /docs in a real browser (Debian's Chromium): "Try it out" calls the
// server that served the page, for both OpenAPI documents, with list filters left empty —
// GET /v2/deployments (after Authorize with the API key) and POST /threads answer 200, and a
// pre-filled create example pressed twice creates twice (no 409). The A2A OpenRPC document is
// browsable as a page of its methods; the page's icon is there (no 404 for /favicon.ico).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { launchBrowser } from '../../support/browser.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

describe('the API console at /docs', () => {
  let server: TestServer;
  let browser: Browser;
  let page: Page;
  const calls: string[] = [];
  before(async () => {
    [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
    // one deployment, so an empty filter shows it (an example filter would hide it)
    const created = await server.api('/v2/deployments', {
      method: 'POST',
      json: { name: 'console-test', source: 'external_docker', source_config: {}, source_revision_config: { image_uri: 'registry.example/agent:1.0' } },
    });
    assert.equal(created.status, 201);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(20_000);
    page = await context.newPage();
    page.on('request', (req) => calls.push(`${req.method()} ${req.url()}`));
    await page.goto(`${server.url}/docs`);
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const operationBlock = (method: string, path: string): Locator =>
    page
      .locator(`.opblock-${method.toLowerCase()}`)
      .filter({ has: page.locator(`.opblock-summary-path[data-path="${path}"]`) })
      .first();

  /** Expands an operation, presses "Try it out" and "Execute", and reads the answer's status. */
  async function tryItOut(method: string, path: string): Promise<{ status: string; body: string }> {
    const block = operationBlock(method, path);
    await block.locator('.opblock-summary').first().click();
    await block.locator('.try-out__btn').click();
    return execute(method, path);
  }

  /** Presses "Execute" of an operation already in "Try it out" and reads the answer it gets. */
  async function execute(method: string, path: string): Promise<{ status: string; body: string }> {
    const block = operationBlock(method, path);
    const answered = page.waitForResponse((res) => res.request().method() === method && new URL(res.url()).pathname === path);
    await block.locator('.execute').click();
    await answered;
    const status = block.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    // the table shows this answer once its body is in (the previous one stays until then)
    await block.locator('.live-responses-table tr.response .response-col_description pre').first().waitFor();
    return {
      status: (await status.innerText()).trim(),
      body: await block.locator('.live-responses-table tr.response .response-col_description pre').first().innerText(),
    };
  }

  it('control plane: Try it out on GET /v2/deployments calls this server and lists the deployment', async () => {
    await page.locator('.btn.authorize').first().click();
    const dialog = page.locator('.dialog-ux');
    const apiKeyForm = dialog.locator('.auth-container').filter({ hasText: 'X-Api-Key' }).first();
    await apiKeyForm.locator('input').first().fill(server.key);
    await apiKeyForm.locator('button.authorize').click();
    await dialog.locator('button.btn-done').first().click();
    const { status, body } = await tryItOut('GET', '/v2/deployments');
    assert.equal(status, '200');
    assert.match(body, /console-test/);
    // to this server, with paging defaults only: no example filter (name_contains, status…)
    const call = calls.find((c) => c.startsWith(`GET ${server.url}/v2/deployments`));
    assert.ok(call, `the call went to this server: ${calls.filter((c) => c.includes('/v2/')).join(', ')}`);
    assert.deepEqual(
      [...new URL(call.slice(4)).searchParams.keys()].filter((k) => k !== 'limit' && k !== 'offset'),
      [],
    );
  });

  it('control plane: the pre-filled POST /v2/deployments example, executed twice, creates two deployments', async () => {
    const first = await tryItOut('POST', '/v2/deployments');
    assert.equal(first.status, '201', first.body);
    const second = await execute('POST', '/v2/deployments');
    assert.equal(second.status, '201', second.body);
    const names = [first.body, second.body].map((body) => JSON.parse(body).name);
    assert.notEqual(names[0], names[1]);
    for (const name of names) assert.match(name, /^my-agent-[a-z0-9]+$/);
  });

  it('agent server: Try it out on POST /threads answers 200, and Execute again creates another thread', async () => {
    await page.locator('.topbar select').selectOption({ label: 'Agent server' });
    await page.locator('.opblock-summary-path[data-path="/threads"]').first().waitFor();
    const { status, body } = await tryItOut('POST', '/threads');
    assert.equal(status, '200');
    assert.match(body, /"thread_id"/);
    assert.ok(calls.some((c) => c === `POST ${server.url}/threads`));
    const again = await execute('POST', '/threads');
    assert.equal(again.status, '200', again.body);
    assert.notEqual(JSON.parse(again.body).thread_id, JSON.parse(body).thread_id);
  });

  it('the page icon is served: /favicon.ico is an image the browser decodes, not a 404', async () => {
    const width = await page.evaluate(
      () =>
        new Promise<number>((resolve, reject) => {
          const image = new (globalThis as any).Image();
          image.onload = () => resolve(image.naturalWidth);
          image.onerror = () => reject(new Error('the icon did not load'));
          image.src = '/favicon.ico';
        }),
    );
    assert.equal(width, 16);
  });

  it('the A2A OpenRPC document is browsable', async () => {
    await page.goto(`${server.url}/docs/a2a`);
    for (const method of ['message/send', 'message/stream', 'tasks/get', 'tasks/cancel']) {
      assert.ok(await page.locator(`section[id="${method}"] h2`).isVisible(), method);
    }
  });
});
