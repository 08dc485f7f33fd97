// A run's page in a real browser: from the thread's runs table to the run, whose trace shows
// its nodes, the model call inside `agent` and the tool call inside `tools`, in order, with
// durations; beside it the run's stream events and the thread's final state. And an assistant's
// page with the run metrics of its runs.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { finishedTracedRun } from '../../support/tracedRun.ts';
import { ROOT } from '../../support/server.ts';
import { dashboardFixture, openPage, pageErrors, screenshot } from '../../support/browser.ts';

const project = {
  graphs: {
    traced: path.join(ROOT, 'test/fixtures/graphs/traced.ts') + ':traced',
    agent: path.join(ROOT, 'examples/graphs/agent.ts') + ':agent',
  },
};

const fixture = dashboardFixture({ project });

test("a run's trace shows its nodes, a model call and a tool call in order with durations", { timeout: 120_000 }, async () => {
  const thread = (await (await fixture.server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
  await fixture.server.api(`/threads/${thread.thread_id}/runs/wait`, {
    method: 'POST',
    json: { assistant_id: 'traced', input: { messages: [{ role: 'user', content: 'add two numbers' }] } },
  });
  const page = await openPage(fixture.browser, `${fixture.server.url}/dashboard/threads/${thread.thread_id}`, { key: fixture.server.key });
  await page.locator('table a[href*="/runs/"]').first().click();
  const trace = page.getByRole('list', { name: 'Trace' });
  await trace.locator('li[data-kind="tool"]').waitFor();
  const rows = await trace.locator(':scope > li').evaluateAll((items) =>
    items.map((li) => ({
      kind: li.getAttribute('data-kind'),
      name: li.querySelector('.span-name')?.textContent,
      duration: li.querySelector('.span-duration')?.textContent,
    })),
  );
  assert.deepEqual(
    rows.map((r) => `${r.kind}:${r.name}`),
    ['run:invoke_agent traced', 'node:agent', 'model:chat FakeListChatModel', 'node:tools', 'tool:execute_tool add'],
  );
  assert.ok(
    rows.every((r) => /^\d+(\.\d+)? (ms|s)$/.test(r.duration ?? '')),
    JSON.stringify(rows),
  );
  // beside the trace: the stream events and the final state
  await page.getByRole('list', { name: 'Stream events' }).locator('li', { hasText: 'values' }).first().waitFor();
  await page.getByRole('heading', { name: 'Final state' }).waitFor();
  await screenshot(page, 'run-trace');
  // no horizontal scroll at 400 px
  await page.setViewportSize({ width: 400, height: 800 });
  assert.equal(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= 400), true);
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test("a model call's tool calls, and the tool's arguments and result, are shown on the run's page", { timeout: 120_000 }, async () => {
  const thread = (await (await fixture.server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
  const run = (await (
    await fixture.server.api(`/threads/${thread.thread_id}/runs`, {
      method: 'POST',
      json: { assistant_id: 'agent', input: { messages: [{ role: 'user', content: 'what is 6 * 7?' }] } },
    })
  ).json()) as { run_id: string };
  await fixture.server.api(`/threads/${thread.thread_id}/runs/${run.run_id}/join`);
  const page = await openPage(fixture.browser, `${fixture.server.url}/dashboard/threads/${thread.thread_id}/runs/${run.run_id}`, {
    key: fixture.server.key,
  });
  const trace = page.getByRole('list', { name: 'Trace' });
  // the first model call asked for the calculator: its output message carries the call, with its arguments
  const asked = trace
    .locator('li[data-kind="model"]')
    .first()
    .getByRole('list', { name: /^Messages out of chat / });
  const call = asked.getByLabel('Tool call calculator');
  await call.waitFor();
  assert.match((await call.locator('pre').textContent()) ?? '', /"input": "what is 6 \* 7\?"/);
  // the tool's span: what it was called with and what it answered
  const tool = trace.locator('li[data-kind="tool"]').first();
  assert.match((await tool.locator('.span-json', { hasText: 'arguments' }).textContent()) ?? '', /6 \* 7/);
  assert.match((await tool.locator('.span-json', { hasText: 'result' }).textContent()) ?? '', /42/);
  // and the next model call read the tool's answer
  const read = trace
    .locator('li[data-kind="model"]')
    .nth(1)
    .getByRole('list', { name: /^Messages into chat / });
  await read.locator('.part-tool-response', { hasText: '42' }).first().waitFor();
  await screenshot(page, 'run-trace-tool-calls');
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test("a failed run's page shows its trace up to the error, the failing node marked with the error", { timeout: 120_000 }, async () => {
  const { thread_id, run_id } = await finishedTracedRun(fixture.server, 'fail please');
  const page = await openPage(fixture.browser, `${fixture.server.url}/dashboard/threads/${thread_id}/runs/${run_id}`, { key: fixture.server.key });
  const failing = page.getByRole('list', { name: 'Trace' }).locator('li.span-error[data-kind="node"]');
  await failing.waitFor();
  assert.equal(await failing.locator('.span-name').textContent(), 'fail');
  assert.match((await failing.locator('.span-error-text').textContent()) ?? '', /the fail node failed on purpose/);
  await screenshot(page, 'run-trace-failed');
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test(
  "an assistant's page shows its run metrics: after three successful runs and one failed run, 4 runs and a 25% error rate",
  { timeout: 120_000 },
  async () => {
    // an assistant of its own, so the other tests' runs of the graph do not count
    const assistant = (await (await fixture.server.api('/assistants', { method: 'POST', json: { graph_id: 'traced', name: 'measured' } })).json()) as {
      assistant_id: string;
    };
    for (const content of ['add', 'add', 'add', 'fail please']) await finishedTracedRun(fixture.server, content, assistant.assistant_id);
    const page = await openPage(fixture.browser, `${fixture.server.url}/dashboard/assistants/${assistant.assistant_id}`, { key: fixture.server.key });
    const figures = page.getByRole('region', { name: 'Run metrics' });
    const value = (label: string) => figures.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]');
    await value('Runs').filter({ hasText: /^4$/ }).waitFor();
    assert.equal(await value('Failed').textContent(), '1');
    assert.equal(await value('Error rate').textContent(), '25%');
    assert.match((await value('p50 duration').textContent()) ?? '', /^\d+(\.\d+)? (ms|s)$/);
    assert.equal(await value('By status').textContent(), 'success 3, error 1');
    // another window asks again: the same runs are within the last 7 days
    await page.getByLabel('Metrics window').selectOption({ label: 'last 7 days' });
    await value('Runs').filter({ hasText: /^4$/ }).waitFor();
    await screenshot(page, 'assistant-metrics');
    await page.setViewportSize({ width: 400, height: 800 });
    assert.equal(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= 400), true);
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  },
);
