// The thread page's and the chat's details of issue 89, in Chromium against a real server:
// the history's step labels stay with their checkpoints when a branch is added; after "Edit
// state here" the step is headed as the edit, not as the node next; a tool call's line in a
// diff names the tool and its arguments; the chat's message box has an input history (Up, Down).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { dashboardFixture, openPage, pageErrors } from '../../support/browser.ts';

const project = {
  graphs: {
    steps: './test/fixtures/graphs/dashboard.ts:steps',
    agent: './examples/graphs/agent.ts:agent',
    echo: './examples/graphs/echo.ts:echo',
  },
};
const fixture = dashboardFixture({ project });
const open = (path: string) => openPage(fixture.browser, fixture.server.url + path, { key: fixture.server.key });

/** A thread with one finished run of `assistant` on `text`. */
async function threadWith(assistant: string, text: string): Promise<string> {
  const { thread_id } = (await (await fixture.server.api('/threads', { method: 'POST', json: {} })).json()) as { thread_id: string };
  const run = await fixture.server.api(`/threads/${thread_id}/runs/wait`, {
    method: 'POST',
    json: { assistant_id: assistant, input: { messages: [{ role: 'user', content: text }] } },
  });
  assert.equal(run.status, 200);
  return thread_id;
}

const historyOf = (page: Page) => page.getByRole('list', { name: 'Checkpoints, newest first' });
/** Every checkpoint's step label, newest first, once the list holds `count` of them. */
async function labels(page: Page, count: number): Promise<string[]> {
  const steps = historyOf(page).locator('li .step');
  await steps.nth(count - 1).waitFor();
  return steps.allInnerTexts();
}

test('the history labels stay with their checkpoints when branches are added', async () => {
  const thread = await threadWith('steps', 'branch me');
  const page = await open(`/dashboard/threads/${thread}`);
  const history = historyOf(page);
  const rerunFrom = async (next: string, count: number) => {
    await history
      .getByRole('button', { name: new RegExp(`next ${next}`) })
      .first()
      .click();
    await page.getByRole('region', { name: 'State at the picked checkpoint' }).getByRole('button', { name: 'Re-run from here' }).click();
    return labels(page, count);
  };
  const first = await labels(page, 5);
  // a re-run from before act, then another from before report: each adds a branch on top
  const once = await rerunFrom('act', first.length + 2);
  assert.ok(
    once.some((l) => /\.2$/.test(l)),
    once.join(' | '),
  );
  const twice = await rerunFrom('report', once.length + 1);
  assert.deepEqual(twice.slice(-once.length), once, 'the labels shown before a branch was added are the same after');
  assert.ok(
    twice.some((l) => /\.3$/.test(l)),
    twice.join(' | '),
  );
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test('after "Edit state here" the step is headed as the edit, with the change it made', async () => {
  const thread = await threadWith('steps', 'edit me');
  const page = await open(`/dashboard/threads/${thread}`);
  await historyOf(page)
    .getByRole('button', { name: /next act/ })
    .click();
  const picked = page.getByRole('region', { name: 'State at the picked checkpoint' });
  await picked.getByRole('heading', { name: 'Node act' }).waitFor();
  await picked.getByRole('button', { name: 'Edit state here' }).click();
  const values = picked.getByLabel(/State at this checkpoint/);
  await values.fill((await values.inputValue()).replace('"edit me"', '"edited"'));
  await picked.getByRole('button', { name: 'Save and re-run' }).click();
  const edit = picked.getByRole('region', { name: 'What the edit did' });
  await edit.getByRole('heading', { name: /^Edit of the state/ }).waitFor();
  assert.equal(await picked.getByRole('heading', { name: 'Node act' }).count(), 0, 'not headed as the node next');
  await edit.getByRole('list', { name: 'State diff' }).getByText('human: edited').waitFor();
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test("a tool call's line in the diff names the tool and its arguments", async () => {
  const thread = await threadWith('agent', 'what is 6 * 7?');
  const page = await open(`/dashboard/threads/${thread}`);
  // the checkpoint before the model's first turn: its step added the tool call
  await historyOf(page)
    .getByRole('button', { name: /next agent/ })
    .last()
    .click();
  const step = page.getByRole('region', { name: 'What the node did' });
  await step.getByRole('heading', { name: 'Node agent' }).waitFor();
  const line = step.getByRole('list', { name: 'State diff' }).locator('li.added');
  await line.first().waitFor();
  assert.match(await line.first().innerText(), /ai: calls calculator\(\{"input":"[^"]*6 \* 7[^"]*"\}\)/);
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});

test('the message box brings back what was sent with Up, and goes forward with Down', async () => {
  const page = await open('/dashboard/assistants');
  await page.getByRole('link', { name: 'echo', exact: true }).click();
  const box = page.getByLabel('Message', { exact: true });
  for (const text of ['first question', 'second question']) {
    await box.fill(text);
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('.chat').getByText(text).first().waitFor();
    await page.getByRole('button', { name: 'Send', exact: true }).and(page.locator(':not([disabled])')).or(box).first().waitFor();
  }
  await box.fill('half typed');
  await box.press('ArrowUp');
  assert.equal(await box.inputValue(), 'second question');
  await box.press('ArrowUp');
  assert.equal(await box.inputValue(), 'first question');
  await box.press('ArrowDown');
  assert.equal(await box.inputValue(), 'second question');
  await box.press('ArrowDown');
  assert.equal(await box.inputValue(), 'half typed', 'back to what was being typed');
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
