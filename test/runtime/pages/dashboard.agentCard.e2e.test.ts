// The assistant page's A2A card in the browser: the versions and bindings the assistant serves
// (the v1.0 card's supportedInterfaces: JSON-RPC 1.0, HTTP+JSON 1.0, gRPC 1.0 while its port
// serves, JSON-RPC 0.3), the card itself as a summary and as JSON, fetched from the well-known
// card path with the A2A-Version picked (1.0 first, 0.3 on demand), and whether it is signed.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { dashboardFixture, openPage, pageErrors, screenshot } from '../../support/browser.ts';

const signingKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const fixture = dashboardFixture({
  project: { graphs: { echo: './examples/graphs/echo.ts:echo' } },
  env: { AGENTPLANE_GRPC_PORT: '0', AGENTPLANE_A2A_SIGNING_KEY: signingKey, AGENTPLANE_A2A_SIGNING_KEY_ID: 'dash-key' },
});

type Interface = { url: string; protocolBinding: string; protocolVersion: string; tenant?: string };

/** The card as an A2A client gets it for `version`. */
async function cardFor(version: string, assistantId: string): Promise<Record<string, unknown> & { supportedInterfaces: Interface[] }> {
  const res = await fetch(`${fixture.server.url}/.well-known/agent-card.json?assistant_id=${assistantId}`, { headers: { 'A2A-Version': version } });
  assert.equal(res.status, 200);
  return (await res.json()) as never;
}

/** The rows of the page's versions-and-bindings table, as the card's interfaces. */
async function shownInterfaces(page: Page): Promise<Interface[]> {
  const table = page.getByRole('table', { name: 'A2A versions and bindings served, in order of preference' });
  await table.waitFor();
  const rows = await table
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => Array.from((tr as unknown as { cells: { textContent: string }[] }).cells, (c) => c.textContent)));
  return rows.map(([protocolBinding, protocolVersion, url, tenant]) => ({ url, protocolBinding, protocolVersion, ...(tenant ? { tenant } : {}) }));
}

/** The JSON the page shows under "Card JSON". */
async function shownJson(page: Page): Promise<Record<string, unknown>> {
  const raw = page.locator('.agent-card details.raw');
  if (!(await raw.evaluate((d) => (d as unknown as { open: boolean }).open))) await raw.locator('summary').click();
  return JSON.parse((await raw.locator('pre').textContent()) ?? '') as Record<string, unknown>;
}

const withoutSignatures = ({ signatures: _signatures, ...card }: Record<string, unknown>) => card;

test("an assistant's page shows the A2A versions and bindings it serves and its card, fetched per A2A-Version", async () => {
  const { server, browser } = fixture;
  const grpc = await server.grpc;
  assert.ok('port' in grpc, 'the gRPC port serves');
  const page = await openPage(browser, `${server.url}/dashboard/assistants`, { key: server.key });
  // every card request the page makes, with the version it asked for
  const asked: { url: string; version: string | undefined }[] = [];
  page.on('request', (req) => {
    if (req.url().includes('/.well-known/agent-card.json')) asked.push({ url: req.url(), version: req.headers()['a2a-version'] });
  });
  await page.getByRole('link', { name: 'echo' }).click();
  const assistantId = /\/dashboard\/assistants\/([^/?]+)/.exec(page.url())![1];
  const cardPath = `${server.url}/.well-known/agent-card.json?assistant_id=${assistantId}`;

  // A2A 1.0 first: the interfaces, in the card's order, with the gRPC port serving now and the assistant as its tenant
  const v1 = await cardFor('1.0', assistantId);
  const base = `${server.url}/a2a/${assistantId}`;
  assert.deepEqual(v1.supportedInterfaces, [
    { url: base, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url: `${base}/v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    { url: `127.0.0.1:${grpc.port}`, protocolBinding: 'GRPC', protocolVersion: '1.0', tenant: assistantId },
    { url: base, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ]);
  assert.deepEqual(await shownInterfaces(page), v1.supportedInterfaces);
  const card = page.locator('.agent-card');
  await card.getByText(`GET /.well-known/agent-card.json?assistant_id=${assistantId} with A2A-Version: 1.0`).waitFor();
  await card.locator('dd', { hasText: 'yes (ES256, key dash-key)' }).waitFor();
  assert.equal(await card.locator('dt', { hasText: 'Protocol' }).count(), 0, 'the v1.0 card has no protocolVersion');
  const shownV1 = await shownJson(page);
  assert.equal((shownV1.signatures as unknown[]).length, 1);
  // signatures differ per request (ECDSA): the rest is the card a client gets
  assert.deepEqual(withoutSignatures(shownV1), withoutSignatures(v1));
  assert.deepEqual(asked, [{ url: cardPath, version: '1.0' }]);
  await screenshot(page, 'assistant-a2a-card');

  // A2A 0.3 on demand: the 0.3 card (protocolVersion 0.3.0, its JSON-RPC url), unsigned, with the same interfaces
  await card.getByRole('button', { name: 'A2A 0.3' }).click();
  await card.getByText('with A2A-Version: 0.3').waitFor();
  await card.locator('dd', { hasText: '0.3.0' }).waitFor();
  await card.locator('dd', { hasText: `${base} JSONRPC` }).waitFor();
  assert.equal(await card.getByRole('button', { name: 'A2A 0.3' }).getAttribute('aria-pressed'), 'true');
  // the 0.3 card is signed too (issue 85), anew per request: compared without its signatures, which it carries
  const shownV03 = await shownJson(page);
  assert.equal((shownV03.signatures as unknown[]).length, 1);
  assert.deepEqual(withoutSignatures(shownV03), withoutSignatures(await cardFor('0.3', assistantId)));
  assert.deepEqual(await shownInterfaces(page), v1.supportedInterfaces);
  assert.deepEqual(asked.at(-1), { url: cardPath, version: '0.3' });
  assert.deepEqual(pageErrors(page), []);
  await page.context().close();
});
