// The dashboard with a broken thread present (issue 84). A run whose input the graph's reducers
// refuse (a message of role "bogus") leaves a thread whose state, and on a server that derives
// them from the state its record and the searches that include it, cannot be read. The thread's
// page still shows what can be read, its runs, why its run failed and Delete; the Threads list
// shows the other threads and marks the odd one; a failing poll backs off. The failures are
// also forced with page.route(), so that each case holds whatever the server itself answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page, Route } from 'playwright-core';
import { dashboardFixture, openPage, pageErrors, screenshot } from '../../support/browser.ts';

const fixture = dashboardFixture({ project: { graphs: { agent: './examples/graphs/agent.ts:agent' } } });

interface ThreadRecord {
  thread_id: string;
}

/** A thread with one run of the shipped agent on `message`; its id. */
async function threadWithRun(message: Record<string, unknown>, metadata: Record<string, unknown>): Promise<string> {
  const thread = (await (await fixture.server.api('/threads', { method: 'POST', json: { metadata } })).json()) as ThreadRecord;
  const run = await fixture.server.api(`/threads/${thread.thread_id}/runs/wait`, {
    method: 'POST',
    json: { assistant_id: 'agent', input: { messages: [message] } },
  });
  assert.equal(run.status, 200, await run.text());
  return thread.thread_id;
}

/** The input issue 84 found: the run fails in the messages reducer and the thread is `error`. */
const brokenThread = () => threadWithRun({ role: 'bogus', content: 'hi' }, { case: 'broken' });

/** Two threads whose runs went well, made once for the file (after the fixture's server starts). */
let goodOnes: Promise<string[]> | undefined;
const goodThreads = () =>
  (goodOnes ??= (async () => [
    await threadWithRun({ role: 'user', content: 'what is 6 * 7?' }, { case: 'good' }),
    await threadWithRun({ role: 'user', content: 'count these four words' }, { case: 'good' }),
  ])());

/** The dashboard at `path`, with `routes` set before it loads. */
const pageWith = (path: string, routes: PageRoutes) =>
  openPage(fixture.browser, `${fixture.server.url}${path}`, { key: fixture.server.key, beforeLoad: routes });

type PageRoutes = (page: Page) => Promise<void>;

/** `handle` answers `method` on exactly `path` of the agent server (not its sub-paths), in the server's place. */
const on =
  (method: string, path: string, handle: (route: Route) => Promise<void>): PageRoutes =>
  async (page) => {
    await page.route(
      (url) => url.pathname === path,
      (route) => (route.request().method() === method ? handle(route) : route.fallback()),
    );
  };

const fail = (route: Route) => route.fulfill({ status: 500, contentType: 'application/json', body: JSON.stringify({ detail: 'Internal Server Error' }) });

const all =
  (...routes: PageRoutes[]): PageRoutes =>
  async (page) => {
    for (const route of routes) await route(page);
  };

async function recordOf(id: string): Promise<Record<string, unknown>> {
  const response = await fixture.server.api(`/threads/${id}`);
  const body = await response.text();
  assert.equal(response.status, 200, body);
  return JSON.parse(body) as Record<string, unknown>;
}

test('the Threads list shows the other threads and marks the one whose values hold something odd', { timeout: 120_000 }, async () => {
  const good = await goodThreads();
  const broken = await brokenThread();
  // what one thread may hold, whatever the server makes of it: values that are no list of messages
  const odd = [
    { ...(await recordOf(good[0])), thread_id: broken, status: 'error', values: { messages: 'not a list' }, metadata: ['not', 'an', 'object'] },
    { thread_id: 'f0000000-0000-4000-8000-000000000000', status: 7, values: { messages: [null, 42, { type: 'human', content: { nested: [1] } }] } },
  ];
  const listed = [await recordOf(good[0]), ...odd, await recordOf(good[1])];
  const page = await pageWith(
    '/dashboard/threads',
    on('POST', '/threads/search', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(listed) })),
  );
  const table = page.getByRole('table', { name: 'Threads' });
  for (const id of good) await table.getByRole('link', { name: id }).waitFor();
  await table.locator('tr', { hasText: 'what is 6 * 7?' }).waitFor();
  const marked = table.locator('tr.unreadable');
  assert.equal(await marked.count(), 2);
  assert.match(await marked.filter({ hasText: broken }).innerText(), /unreadable: .*its messages are not a list/);
  assert.match(await marked.nth(1).innerText(), /unreadable: some of its messages are not objects/);
  // the list itself answered: no error replaces it
  assert.equal(await page.locator('main [role="alert"]').count(), 0);
  await screenshot(page, 'threads-broken');
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test(
  'the Threads list, as the server answers it with a broken thread present, lists every thread and the broken one as failed',
  { timeout: 120_000 },
  async () => {
    const good = await goodThreads();
    const broken = await brokenThread();
    const page = await openPage(fixture.browser, `${fixture.server.url}/dashboard/threads`, { key: fixture.server.key });
    const table = page.getByRole('table', { name: 'Threads' });
    for (const id of good) await table.getByRole('link', { name: id }).waitFor();
    await table.locator('tr', { hasText: broken }).locator('.status', { hasText: 'error' }).waitFor();
    assert.equal(await page.locator('main [role="alert"]').count(), 0);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  },
);

test('a thread whose state cannot be read shows its record, its runs, the error and Delete', { timeout: 120_000 }, async () => {
  const [id] = await goodThreads();
  const page = await pageWith(`/dashboard/threads/${id}`, all(on('GET', `/threads/${id}/state`, fail), on('POST', `/threads/${id}/history`, fail)));
  const record = page.getByRole('region', { name: 'Thread', exact: true });
  await record.getByText('Created', { exact: true }).waitFor();
  await record.getByText('"case":"good"').waitFor();
  await page.getByRole('region', { name: 'Runs', exact: true }).getByText('success', { exact: true }).waitFor();
  await page.getByRole('region', { name: 'State', exact: true }).getByRole('alert').filter({ hasText: 'Internal Server Error' }).waitFor();
  await page.getByRole('button', { name: 'Delete' }).waitFor();
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test('a state holding what no page expected leaves the rest of the thread page drawn', { timeout: 120_000 }, async () => {
  const [id] = await goodThreads();
  const state = { values: { messages: [{ type: 'ai', content: 'x', tool_calls: 'not a list' }] }, next: [], tasks: [], metadata: {}, checkpoint: null };
  const page = await pageWith(
    `/dashboard/threads/${id}`,
    on('GET', `/threads/${id}/state`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(state) })),
  );
  await page.getByRole('region', { name: 'Messages', exact: true }).getByRole('alert').filter({ hasText: 'The messages could not be shown' }).waitFor();
  await page.getByRole('region', { name: 'Runs', exact: true }).getByText('success', { exact: true }).waitFor();
  await page.getByRole('region', { name: 'Thread', exact: true }).getByText('Created', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Delete' }).waitFor();
  await page.context().close();
});

test('a state the server could not compute (state_error) shows the stored values, why, and why the last run failed', { timeout: 120_000 }, async () => {
  const broken = await brokenThread();
  const stored = {
    values: { messages: [{ type: 'human', content: 'stored before the failure' }] },
    next: [],
    tasks: [],
    metadata: null,
    checkpoint: null,
    parent_checkpoint: null,
    created_at: null,
    interrupts: [],
    state_error: 'the graph no longer loads',
  };
  const page = await pageWith(
    `/dashboard/threads/${broken}`,
    on('GET', `/threads/${broken}/state`, (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(stored) })),
  );
  await page
    .getByRole('region', { name: 'State', exact: true })
    .getByText('could not be computed', { exact: false })
    .getByText(/the graph no longer loads/)
    .waitFor();
  await page.getByRole('region', { name: 'Messages', exact: true }).getByText('stored before the failure').waitFor();
  await page.getByRole('alert', { name: 'The last run failed' }).filter({ hasText: 'Unable to coerce message' }).waitFor();
  await page.getByRole('button', { name: 'Delete' }).waitFor();
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test('the broken thread, as the server answers it, shows its runs, why its run failed and Delete', { timeout: 120_000 }, async () => {
  const broken = await brokenThread();
  const page = await openPage(fixture.browser, `${fixture.server.url}/dashboard/threads/${broken}`, { key: fixture.server.key });
  await page.getByRole('alert', { name: 'The last run failed' }).filter({ hasText: 'Unable to coerce message' }).waitFor();
  await page.getByRole('region', { name: 'Runs', exact: true }).getByText('error', { exact: true }).waitFor();
  await page.getByRole('region', { name: 'Thread', exact: true }).getByText(broken, { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Delete' }).waitFor();
  // its failed run's page opens from there, its trace and its error with it
  await page.getByRole('alert', { name: 'The last run failed' }).getByRole('link', { name: 'See the run and its trace' }).click();
  await page.locator('h1 .status', { hasText: 'error' }).waitFor();
  await page.getByRole('region', { name: 'Trace', exact: true }).getByText('Unable to coerce message').first().waitFor();
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test(
  'with its record, state and history failing, the thread page keeps its runs, the error and a Delete that works; its polls back off',
  { timeout: 120_000 },
  async () => {
    const broken = await brokenThread();
    let recordReads = 0;
    const page = await pageWith(`/dashboard/threads/${broken}`, async (page) => {
      // timers the test moves on itself: the retries' waits are read without waiting them out
      await page.clock.install();
      await all(
        on('GET', `/threads/${broken}`, (route) => (recordReads++, fail(route))),
        on('GET', `/threads/${broken}/state`, fail),
        on('POST', `/threads/${broken}/history`, fail),
      )(page);
    });
    await page.getByRole('alert', { name: 'The last run failed' }).filter({ hasText: 'Unable to coerce message' }).waitFor();
    await page.getByRole('region', { name: 'Runs', exact: true }).getByText('error', { exact: true }).waitFor();
    const record = page.getByRole('region', { name: 'Thread', exact: true });
    await record.getByText(broken, { exact: true }).waitFor();
    await record.getByRole('alert').filter({ hasText: 'Internal Server Error' }).waitFor();
    await screenshot(page, 'thread-broken');
    assert.equal(recordReads, 1);

    // the record is asked for again 5 s after its failure, then 10 s after the next one
    const reads = async (expected: number) => {
      for (let waited = 0; recordReads < expected && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      // a little longer: a read beyond the expected one would show now
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(recordReads, expected);
    };
    await page.clock.runFor(5_000);
    await reads(2);
    await page.clock.runFor(9_000);
    await reads(2);
    await page.clock.runFor(1_000);
    await reads(3);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/dashboard\/threads$/);
    assert.equal((await fixture.server.api(`/threads/${broken}`)).status, 404);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  },
);
