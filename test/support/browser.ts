// The dashboard's browser harness: builds ui/ when dist/ui is older than it, starts one Debian
// Chromium (headless, shared by every test of the file) and opens pages with the API key
// already in the session.
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { ROOT, startTestServer, type TestServer, type TestServerOptions } from './server.ts';

// callbacks of page.evaluate run in the browser; this program is typed without the DOM library
declare const document: any;
declare const sessionStorage: any;

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Builds the dashboard from its sources into dist/ui. */
async function buildDashboard(): Promise<void> {
  await build({ configFile: path.join(ROOT, 'ui/vite.config.ts'), logLevel: 'error' });
}

/** The newest modification time of the files under `dir`. */
const newestUnder = (dir: string): number =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .reduce((newest, e) => Math.max(newest, e.isDirectory() ? newestUnder(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs), 0);

let built: Promise<void> | undefined;

/**
 * The dashboard as ui/ is now: built unless dist/ui was built after every file it is built
 * from last changed (ui/, the spec it embeds, the locked dependencies) — npm ci builds it —
 * and at most once per test process. Never while dist/ui is current: the release checks pack
 * dist/ beside the dashboard's tests, and a build empties dist/ui first.
 */
export function dashboardBuilt(): Promise<void> {
  const builtAt = fs.statSync(path.join(ROOT, 'dist/ui/index.html'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const sources = Math.max(newestUnder(path.join(ROOT, 'ui')), newestUnder(path.join(ROOT, 'spec')), fs.statSync(path.join(ROOT, 'package-lock.json')).mtimeMs);
  return (built ??= sources < builtAt ? Promise.resolve() : buildDashboard());
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/**
 * Where screenshots go: docs/dashboard/ with UPDATE_SCREENSHOTS=1 (docs/dashboard.md shows those),
 * else the release checks' output folder, .cache/release/dashboard/ (ignored by git; SCREENSHOTS_DIR
 * names another), where a person looks at each page after a run.
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? path.join(ROOT, 'docs/dashboard')
    : path.resolve(process.env.SCREENSHOTS_DIR ?? path.join(ROOT, '.cache/release/dashboard'));
fs.mkdirSync(SCREENSHOTS, { recursive: true });

export async function screenshot(page: Page, name: string): Promise<string> {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  // the caret and the focus ring blink and move; neither belongs in a picture of the page
  await page.evaluate(() => document.activeElement?.blur());
  // cut below the content (smaller files), at most one screen
  const viewport = page.viewportSize()!;
  const bottom = await page.evaluate(() => Math.ceil(document.querySelector('main')!.getBoundingClientRect().bottom));
  await page.screenshot({
    path: file,
    animations: 'disabled',
    caret: 'hide',
    clip: { x: 0, y: 0, width: viewport.width, height: Math.min(viewport.height, bottom) },
  });
  return file;
}

export interface PageOptions {
  key?: string;
  width?: number;
  height?: number;
  /** Done to the page before it goes to the URL: routes that answer in the server's place, a clock. */
  beforeLoad?: (page: Page) => Promise<void>;
}

/** A fresh page (own session storage); with `key`, the API key is already entered. */
export async function openPage(browser: Browser, url: string, options: PageOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    timezoneId: 'Europe/Paris',
    locale: 'en-GB',
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  (page as Page & { errors: string[] }).errors = errors;
  if (options.key) await page.addInitScript((key) => sessionStorage.setItem('agentplane.apiKey', key), options.key);
  await options.beforeLoad?.(page);
  await page.goto(url);
  return page;
}

/** Uncaught errors the page threw (a crashed component shows up here). */
export const pageErrors = (page: Page): string[] => (page as Page & { errors: string[] }).errors;

/**
 * One server and one browser for a whole test file, with the dashboard built first: started
 * before its tests, closed after them. Read `server` and `browser` inside the tests.
 */
export function dashboardFixture(options: TestServerOptions): { server: TestServer; browser: Browser } {
  const fixture = {} as { server: TestServer; browser: Browser };
  before(async () => {
    await dashboardBuilt();
    [fixture.server, fixture.browser] = await Promise.all([startTestServer(options), launchBrowser()]);
  });
  after(async () => {
    await fixture.browser?.close();
    await fixture.server?.close();
  });
  return fixture;
}
