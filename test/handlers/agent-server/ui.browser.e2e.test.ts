// Generative UI end to end, as a LangGraph.js app uses it: a page with React and the SDK's
// `LoadExternalComponent` (@langchain/langgraph-sdk/react-ui), in Chromium, renders a
// component of the project's `ui` module from agentplane's bundle, styles and state included.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, pageErrors } from '../../support/browser.ts';
import { ROOT, startTestServer, tempDir, type TestServer } from '../../support/server.ts';

// the component keeps state with the page's React: a second copy of React would break the hook
const COMPONENTS = `import "./weather.css";
import { useState } from "react";

function Weather(props: { city: string }) {
  const [clicks, setClicks] = useState(0);
  return <button className="weather" onClick={() => setClicks(clicks + 1)}>{props.city}: {clicks}</button>;
}

export default { weather: Weather };
`;

// the app's page: what a LangGraph.js client writes to show a graph's UI message
const PAGE = `import { createElement } from "react";
import { createRoot } from "react-dom/client";
import { Client } from "@langchain/langgraph-sdk";
import { LoadExternalComponent } from "@langchain/langgraph-sdk/react-ui";

const client = new Client({ apiUrl: location.origin });
const message = { id: "ui-1", type: "ui", name: "weather", props: { city: "Paris" } };
createRoot(document.getElementById("app")).render(
  createElement(LoadExternalComponent, { stream: { client, assistantId: "weather-agent" }, message, fallback: "loading" }),
);
`;

async function pageScript(): Promise<string> {
  const dir = tempDir('agentplane-ui-page-');
  fs.writeFileSync(path.join(dir, 'page.js'), PAGE);
  const result = await build({
    entryPoints: [path.join(dir, 'page.js')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    nodePaths: [path.join(ROOT, 'node_modules')],
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

describe("generative UI in a browser, through the SDK's LoadExternalComponent", () => {
  let server: TestServer;
  let browser: Browser;
  before(async () => {
    const dir = tempDir('agentplane-ui-');
    fs.writeFileSync(path.join(dir, 'ui.tsx'), COMPONENTS);
    fs.writeFileSync(path.join(dir, 'weather.css'), '.weather { color: rgb(0, 128, 128); }\n');
    fs.writeFileSync(path.join(dir, 'langgraph.json'), JSON.stringify({ graphs: {}, ui: { 'weather-agent': './ui.tsx' } }));
    server = await startTestServer({ dataDir: null, env: { AGENTPLANE_CONFIG: path.join(dir, 'langgraph.json') } });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it("renders the component with its CSS and the page's React", async () => {
    const script = await pageScript();
    const page = await openPage(browser, 'about:blank');
    // the app's page is served from the server's origin, as an app next to its API would be
    await page
      .context()
      .route(`${server.url}/app`, (route) =>
        route.fulfill({ contentType: 'text/html', body: `<!doctype html><div id="app"></div><script>${script.replaceAll('</script', '<\\/script')}</script>` }),
      );
    await page.goto(`${server.url}/app`);
    // playwright's locators pierce the open shadow root the component is rendered into
    const button = page.locator('button.weather');
    await button.waitFor();
    assert.equal(await button.textContent(), 'Paris: 0');
    assert.equal(await button.evaluate((el) => getComputedStyle(el).color), 'rgb(0, 128, 128)');
    await button.click();
    await page.locator('button.weather', { hasText: 'Paris: 1' }).waitFor();
    assert.deepEqual(pageErrors(page), []);
    await page.context().close();
  });
});

declare function getComputedStyle(el: unknown): { color: string };
