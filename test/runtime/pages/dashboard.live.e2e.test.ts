// The dashboard while things happen: the assistant's graph highlights the node a chat run is
// executing (from the run's `tasks` events) and clears when the run ends.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashboardFixture, openPage, pageErrors, screenshot } from '../../support/browser.ts';

// callbacks of page.evaluate run in the browser; this program is typed without the DOM library
declare const document: any;
declare const window: any;

const project = { graphs: { chatty: './test/fixtures/graphs/dashboard.ts:chatty' } };

const fixture = dashboardFixture({ project });

test('the graph highlights the node a chat run is executing, and nothing once the run has ended', { timeout: 120_000 }, async () => {
  const [assistant] = (await (await fixture.server.api('/assistants/search', { method: 'POST', json: { graph_id: 'chatty' } })).json()) as {
    assistant_id: string;
  }[];
  const page = await openPage(fixture.browser, `${fixture.server.url}/dashboard/assistants/${assistant.assistant_id}`, { key: fixture.server.key });
  const graph = page.getByRole('img', { name: /^Graph with/ });
  await graph.locator('.node[data-node="reply"]').waitFor();
  assert.equal(await graph.locator('.node.running').count(), 0);
  // every node seen highlighted, in order (the `read` node is over in an instant)
  await page.evaluate(() => {
    const seen: string[] = (window.__running = []);
    new window.MutationObserver(() => {
      for (const node of document.querySelectorAll('.graph .node.running')) if (seen.at(-1) !== node.dataset.node) seen.push(node.dataset.node);
    }).observe(document.body, { subtree: true, childList: true, attributes: true });
  });
  await page.getByLabel('Message', { exact: true }).fill('highlight me');
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  // the reply streams slowly (a chunk every 40 ms): `reply` is highlighted while it does
  await graph.locator('.node.running[data-node="reply"]').waitFor();
  await screenshot(page, 'assistant-running-node');
  await page.locator('.chat .message-ai', { hasText: 'That makes 2 words.' }).waitFor();
  await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':disabled')).waitFor();
  await page.waitForFunction(() => !document.querySelector('.chat-log[aria-busy="true"]'));
  assert.equal(await graph.locator('.node.running').count(), 0);
  const seen = (await page.evaluate(() => window.__running)) as string[];
  assert.ok(seen.includes('reply'), JSON.stringify(seen));
  assert.ok(!seen.includes('approve'), JSON.stringify(seen));
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
