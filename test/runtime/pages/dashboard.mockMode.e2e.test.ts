// Mock mode in the browser: every page of the dashboard renders the spec's examples, says it
// is a mock, and throws nothing (a page that crashes on an example shows up as a page error).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dashboardFixture, openPage, pageErrors } from '../../support/browser.ts';

// callbacks of page.waitForFunction run in the browser; this program is typed without the DOM library
declare const document: any;

const fixture = dashboardFixture({ mock: true, dataDir: null });

// any id will do: a mock answers every request with its example
const ID = '6a8f2f02-0a5c-4b49-9d2c-1f0d8f6c6b7e';
const PAGES = [
  '/dashboard/deployments',
  '/dashboard/deployments/new',
  `/dashboard/deployments/${ID}`,
  '/dashboard/providers',
  '/dashboard/assistants',
  `/dashboard/assistants/${ID}`,
  '/dashboard/threads',
  `/dashboard/threads/${ID}`,
  `/dashboard/threads/${ID}/runs/${ID}`,
  '/dashboard/store',
  '/dashboard/crons',
];

test('in mock mode every page shows the mock banner and none throws', { timeout: 180_000 }, async () => {
  const { server, browser } = fixture;
  const page = await openPage(browser, server.url + PAGES[0], { key: server.key });
  for (const path of PAGES) {
    await page.goto(server.url + path);
    await page.locator('h1').first().waitFor();
    await page.getByRole('status').filter({ hasText: 'Mock mode' }).waitFor();
    // whatever the page loads has come in (nothing says Loading… any more)
    await page.waitForFunction(() => !document.querySelector('main')?.textContent?.includes('Loading…'));
    assert.deepEqual(pageErrors(page), [], `${path} threw`);
  }
  await page.context().close();
});
