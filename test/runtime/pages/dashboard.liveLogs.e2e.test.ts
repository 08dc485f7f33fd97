// A revision's build log in the browser while the build runs: a real git repository built by
// the local deployer, whose build command prints a line, waits for the test to let it go on,
// then prints another. The first line is on the page before the revision is DEPLOYED; the
// second is appended to the same page, without a reload.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';
import { removeDeploymentUsers } from '../../control-plane/deploymentUsers.ts';
import { tempDir } from '../../support/server.ts';
import { dashboardFixture, openPage, pageErrors, screenshot } from '../../support/browser.ts';

// callbacks of page.evaluate run in the browser; this program is typed without the DOM library
declare const window: any;

const dataDir = tempDir('agentplane-live-logs-');
const fixture = dashboardFixture({ dataDir, env: { AGENTPLANE_DEPLOYER: 'local', AGENTPLANE_ACCESS_LOG: 'off' } });

test("a building revision's log shows each line as the build prints it, before the revision is deployed", { timeout: 300_000 }, async (t) => {
  const { server, browser } = fixture;
  // the build waits for this file: the test, not a clock, decides when it goes on (the quotes
  // keep the printed lines out of the logged command)
  const gateDir = tempDir('agentplane-build-gate-');
  fs.chmodSync(gateDir, 0o777);
  const gate = path.join(gateDir, 'go');
  const repo = makeRepository();
  repo.commit({ 'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }), 'graph.mjs': graphSource('live') }, 'an agent');
  const created = await server.api('/v2/deployments', {
    method: 'POST',
    json: {
      name: 'live-logs',
      source: 'github',
      source_config: { repo_url: repo.dir, build_command: `echo first-'build'-line; while [ ! -e ${gate} ]; do sleep 0.1; done; echo second-'build'-line` },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    },
  });
  assert.equal(created.status, 201, await created.clone().text());
  const deployment = (await created.json()) as { id: string };
  t.after(async () => {
    fs.writeFileSync(gate, '');
    await server.api(`/v2/deployments/${deployment.id}`, { method: 'DELETE' });
    removeDeploymentUsers(`${dataDir}-deployments`);
  });

  const page = await openPage(browser, `${server.url}/dashboard/deployments/${deployment.id}`, { key: server.key });
  await page.evaluate(() => (window.__sameDocument = true));
  const revision = page.locator('.revision').first();
  await revision.getByRole('button', { name: 'Logs' }).click();
  const log = page.getByLabel('Log lines');
  await log.filter({ hasText: 'first-build-line' }).waitFor({ timeout: 120_000 });
  // the build is still waiting: the line came while the revision was in progress
  assert.equal(await revision.locator('.status', { hasText: 'DEPLOYED' }).count(), 0);
  assert.doesNotMatch((await log.textContent()) ?? '', /second-build-line/);
  await page.getByText('Following live…').waitFor();
  await screenshot(page, 'revision-logs-live');
  fs.writeFileSync(gate, '');
  await log.filter({ hasText: 'second-build-line' }).waitFor({ timeout: 120_000 });
  assert.match((await log.textContent()) ?? '', /first-build-line[\s\S]*second-build-line/);
  assert.equal(await page.evaluate(() => window.__sameDocument), true);
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
