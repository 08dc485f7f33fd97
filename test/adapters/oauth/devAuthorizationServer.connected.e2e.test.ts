// The shipped `connected` example out of the box (issue 89): `agentplane serve` as `npm start`
// leaves it — no settings, its keys made in the data directory, nothing reachable outside this
// machine — and the dashboard's chat with no run settings. The run stops with `auth_required`
// and a consent URL on this server (the development provider stands in for `github`, which
// nobody configured); consenting in the browser and resuming ends the run with the token.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ROOT, spawnServer, tempDir, type ChildServer } from '../../support/server.ts';
import { dashboardBuilt, launchBrowser, openPage, pageErrors } from '../../support/browser.ts';

let server: ChildServer;
let browser: Browser;
before(async () => {
  await dashboardBuilt();
  [server, browser] = await Promise.all([
    // the repository's own project, as `npm start` serves it; no AGENTPLANE_* setting of the test's environment reaches it
    spawnServer(['--data', tempDir(), '--config', path.join(ROOT, 'agentplane.json')], { AGENTPLANE_API_KEYS: '', AGENTPLANE_DEV_OAUTH: '' }),
    launchBrowser(),
  ]);
});
after(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
});

test('connected, with no settings: consent on this server from the chat, then the run ends with the token', { timeout: 120_000 }, async () => {
  const page = await openPage(browser, `${server.url}/dashboard/assistants`);
  await page.getByRole('link', { name: 'connected', exact: true }).click();
  await page.getByLabel('Message', { exact: true }).fill('connect me');
  await page.getByRole('button', { name: 'Send', exact: true }).click();

  const consent = page.getByRole('link', { name: 'Consent at github' });
  await consent.waitFor({ timeout: 60_000 });
  const url = new URL((await consent.getAttribute('href'))!);
  assert.equal(url.origin + url.pathname, `${server.url}/dev/oauth/authorize`, 'the consent page is on this server');

  const [consentPage] = await Promise.all([page.context().waitForEvent('page'), consent.click()]);
  await consentPage.getByText('Development only.').waitFor();
  await consentPage.getByRole('button', { name: 'Allow' }).click();
  await consentPage.getByText(/^Connected\./).waitFor();
  await consentPage.close();

  await page.getByRole('form', { name: 'Resume the interrupted run' }).getByRole('button', { name: 'Resume' }).click();
  await page.getByText(/Connected to github \(token …/).waitFor({ timeout: 60_000 });
  assert.deepEqual(pageErrors(page), []);
  assert.doesNotMatch(server.output(), /"level":"error"/);
  await page.context().close();
});
