// Generative UI (langgraph.json `ui`), as the upstream JS server serves it: POST /ui/{agent}
// answers the tags that load a component, GET /ui/{agent}/{file} the bundle's files, and the
// bundle defines `__LGUI_<agent>.render` resolving react through the page's modules. The
// dashboard moved out of the way, to /dashboard.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { reloadsOn } from '../../../src/runtime/project/watch.ts';
import { wasImported } from '../../../src/runtime/project/importedFiles.ts';
import { ROOT, tempDir, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';

const COMPONENTS = `import "./weather.css";
import { useState } from "react";

function Weather(props: { city: string }) {
  const [unit] = useState<"C" | "F">("C");
  return <div className="weather">{props.city} in °{unit}</div>;
}

export default { weather: Weather };
`;

/** A project whose `ui` names a component module (with CSS) for `my-agent` and a module that does not build. */
function uiProject(): string {
  const dir = tempDir('agentplane-ui-');
  fs.mkdirSync(path.join(dir, 'src'));
  fs.writeFileSync(path.join(dir, 'src', 'ui.tsx'), COMPONENTS);
  fs.writeFileSync(path.join(dir, 'src', 'weather.css'), '.weather { color: teal; }\n');
  fs.writeFileSync(path.join(dir, 'src', 'broken.tsx'), 'export default { oops: <div> };\n');
  // a Tailwind user's module: the project installs tailwindcss, its CSS imports it
  fs.mkdirSync(path.join(dir, 'node_modules'));
  fs.symlinkSync(path.join(ROOT, 'node_modules', 'tailwindcss'), path.join(dir, 'node_modules', 'tailwindcss'));
  fs.writeFileSync(
    path.join(dir, 'src', 'styled.tsx'),
    'import "./styled.css";\nexport default { card: () => <div className="p-4 text-teal-600 card">hi</div> };\n',
  );
  fs.writeFileSync(path.join(dir, 'src', 'styled.css'), '@import "tailwindcss";\n.card { @apply rounded-lg; }\n');
  // a module reaching for a file of the server's machine outside the project
  const outside = tempDir('agentplane-outside-');
  fs.writeFileSync(path.join(outside, 'private.js'), 'export default "outside-the-project";\n');
  fs.writeFileSync(
    path.join(dir, 'src', 'escape.tsx'),
    `import text from ${JSON.stringify(path.relative(path.join(dir, 'src'), path.join(outside, 'private.js')))};\nexport default { leak: () => <div>{text}</div> };\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'langgraph.json'),
    JSON.stringify({ graphs: {}, ui: { 'my-agent': './src/ui.tsx', broken: './src/broken.tsx', styled: './src/styled.tsx', escape: './src/escape.tsx' } }),
  );
  return path.join(dir, 'langgraph.json');
}

/** Runs a bundle as a page would, with react provided by the page; returns what `render` handed the page. */
function renderInPage(bundle: string, global: string, component: string) {
  const responded: { shadowRootId: string; component: (props: object) => unknown; mount: unknown }[] = [];
  const appended: unknown[] = [];
  const pageModules: Record<string, unknown> = {
    react: { useState: (initial: unknown) => [initial, () => {}] },
    'react/jsx-runtime': {
      jsx: (type: unknown, props: unknown) => ({ type, props }),
      jsxs: (type: unknown, props: unknown) => ({ type, props }),
      Fragment: 'fragment',
    },
  };
  const page: Record<string | symbol, unknown> = {
    document: {
      createElement: (tag: string) => ({ tag }),
      getElementById: (id: string) => (id === 'root-1' ? { shadowRoot: { appendChild: (el: unknown) => appended.push(el) } } : null),
    },
    [Symbol.for('LGUI_REQUIRE')]: (id: string) => {
      if (!(id in pageModules)) throw new Error(`the page has no module ${id}`);
      return pageModules[id];
    },
    [Symbol.for('LGUI_EXT_STORE')]: {
      respond: (shadowRootId: string, c: (props: object) => unknown, mount: unknown) => responded.push({ shadowRootId, component: c, mount }),
    },
  };
  page.window = page;
  const context = vm.createContext(page);
  vm.runInContext(bundle, context);
  const lgui = vm.runInContext(`typeof ${global} === "undefined" ? undefined : ${global}`, context) as
    { render?: (name: string, id: string) => void } | undefined;
  assert.equal(typeof lgui?.render, 'function', `the bundle defines ${global}.render`);
  lgui!.render!(component, 'root-1');
  return { responded, appended };
}

describe('generative UI (langgraph.json ui)', () => {
  let server: InProcessApp;
  let projectFile: string;
  before(async () => {
    projectFile = uiProject();
    // a public URL naming the bind address, as a deployment's replica is given: the tags must not use it
    server = await areaApp('agent-server', {
      dataDir: null,
      env: { AGENTPLANE_CONFIG: projectFile, AGENTPLANE_PUBLIC_URL: 'http://127.0.0.1:1', AGENTPLANE_TRUST_PROXY: '1' },
    });
  });
  after(() => server.close());

  it('POST /ui/{agent} answers the stylesheet and script tags that render the component', async () => {
    // reached on a loopback address, as a local client reaches the server
    const res = await server.api('/ui/my-agent', { method: 'POST', headers: { host: '127.0.0.1:8123' }, json: { name: 'weather', props: { city: 'Paris' } } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    const base = 'http://127.0.0.1:8123/ui/my-agent';
    assert.equal(
      html,
      [
        `<link rel="stylesheet" href="${base}/entrypoint.css" />`,
        `<script src="${base}/entrypoint.js" onload='__LGUI_my_agent.render("weather", "{{shadowRootId}}")'></script>`,
      ].join('\n'),
    );
  });

  it('the tags name the host the page reached: its Host, or what a trusted proxy forwarded, not the configured public URL', async () => {
    /** The script's src for a request with these headers (a Host among them, sent as a raw HTTP client sends it). */
    const scriptSrc = async (headers: Record<string, string>) => {
      const res = await server.fetch('/ui/my-agent', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ name: 'weather' }),
      });
      const text = await res.text();
      return /<script src="([^"]+)"/.exec(text)?.[1] ?? text;
    };
    assert.equal(await scriptSrc({ host: 'agents.example:8443' }), '//agents.example:8443/ui/my-agent/entrypoint.js');
    assert.equal(await scriptSrc({ host: 'localhost:2024' }), 'http://localhost:2024/ui/my-agent/entrypoint.js');
    assert.equal(
      await scriptSrc({ host: '10.0.0.7:8000', 'x-forwarded-host': 'agents.example', 'x-forwarded-proto': 'https' }),
      '//agents.example/ui/my-agent/entrypoint.js',
    );
    assert.equal(await scriptSrc({ host: '10.0.0.7:8000', forwarded: 'proto=https;host=proxy.example' }), '//proxy.example/ui/my-agent/entrypoint.js');
  });

  it("GET /ui/{agent}/{file} serves the bundle: CSS, and JS that renders the component with the page's react", async () => {
    const css = await server.fetch(`${server.url}/ui/my-agent/entrypoint.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    assert.match(await css.text(), /\.weather\s*\{\s*color: teal;/);

    // no credentials: a <script> tag sends none
    const js = await server.fetch(`${server.url}/ui/my-agent/entrypoint.js`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    const { responded, appended } = renderInPage(await js.text(), '__LGUI_my_agent', 'weather');
    assert.equal(responded.length, 1);
    assert.equal(responded[0].shadowRootId, 'root-1');
    assert.deepEqual(appended, [responded[0].mount]);
    // the component itself, called with the page's jsx runtime (through JSON: its arrays are the page's)
    assert.deepEqual(JSON.parse(JSON.stringify(responded[0].component({ city: 'Paris' }))), {
      type: 'div',
      props: { className: 'weather', children: ['Paris', ' in \u00b0', 'C'] },
    });
  });

  it('a module whose CSS uses Tailwind gets the classes its components use, as upstream', async () => {
    const css = await (await server.fetch(`${server.url}/ui/styled/entrypoint.css`)).text();
    for (const rule of [/\.p-4\s*\{/, /\.text-teal-600\s*\{/, /\.card\s*\{[^}]*border-radius/]) assert.match(css, rule);
    // plain CSS is bundled as written: no Tailwind preflight in the other agent's stylesheet
    assert.doesNotMatch(await (await server.fetch(`${server.url}/ui/my-agent/entrypoint.css`)).text(), /tailwindcss/);
  });

  it('an agent the project names no UI for, or whose module did not build, and an unknown file answer 404 {detail}', async () => {
    for (const agent of ['nope', 'broken']) {
      const res = await server.api(`/ui/${agent}`, { method: 'POST', json: { name: 'weather' } });
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), { detail: `UI not found for agent "${agent}"` });
    }
    for (const file of ['/ui/my-agent/missing.js', '/ui/nope/entrypoint.js']) {
      const res = await server.fetch(server.url + file);
      assert.equal(res.status, 404, file);
      assert.deepEqual(await res.json(), { detail: 'File not found' });
    }
  });

  it('a module importing a file outside the project is not bundled: its agent answers 404', async () => {
    const res = await server.api('/ui/escape', { method: 'POST', json: { name: 'leak' } });
    assert.equal(res.status, 404);
    const file = await server.fetch(`${server.url}/ui/escape/entrypoint.js`);
    assert.equal(file.status, 404);
    assert.doesNotMatch(await file.text(), /outside-the-project/);
  });

  it('a request without the component name, or for a file name no bundle has, is refused with 422', async () => {
    const bad = await server.fetch(`${server.url}/ui/my-agent/entry%20point.js`);
    assert.equal(bad.status, 422);
    const res = await server.api('/ui/my-agent', { method: 'POST', json: { props: {} } });
    assert.equal(res.status, 422);
    const body = (await res.json()) as { detail: { loc: string[] }[] };
    assert.deepEqual(body.detail[0].loc, ['body', 'name']);
  });

  it('a reload (agentplane dev, on a change to the module or its CSS) bundles the components again', async () => {
    const css = path.join(path.dirname(projectFile), 'src', 'weather.css');
    assert.ok(reloadsOn(path.dirname(projectFile), css, { imported: wasImported }), 'a change to the CSS the module imports reloads');
    assert.ok(
      wasImported(path.join(path.dirname(projectFile), 'src', 'ui.tsx')) && !wasImported(path.join(path.dirname(projectFile), 'src', 'unused.tsx')),
      "the bundle's inputs, only they, count as imported",
    );
    fs.writeFileSync(css, '.weather { color: navy; }\n');
    await server.reload();
    assert.match(await (await server.fetch(`${server.url}/ui/my-agent/entrypoint.css`)).text(), /color: navy;/);
  });

  it('the dashboard is served at /dashboard; / and the old /ui redirect there', async () => {
    for (const old of ['/', '/ui', '/ui/']) {
      const res = await server.fetch(server.url + old, { redirect: 'manual' });
      assert.equal(res.status, 302, old);
      assert.equal(res.headers.get('location'), '/dashboard/', old);
    }
    const page = await server.fetch(`${server.url}/dashboard/deployments`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  });
});

describe('generative UI of the shipped example project', () => {
  it("bundles the agent graph's example components (agentplane.json ui)", async () => {
    const server = await areaApp('agent-server', { dataDir: null });
    try {
      const res = await server.api('/ui/agent', { method: 'POST', json: { name: 'weather' } });
      assert.equal(res.status, 200);
      const script = /<script src="([^"]+)"/.exec(await res.text())?.[1];
      assert.ok(script);
      // the src names the host the request reached, without a scheme here: resolved as a page resolves it
      const js = await server.fetch(new URL(script, server.url));
      assert.equal(js.status, 200);
      const { responded } = renderInPage(await js.text(), '__LGUI_agent', 'weather');
      assert.equal(typeof responded[0].component, 'function');
    } finally {
      await server.close();
    }
  });
});

describe('generative UI with agent-server auth on', () => {
  it('the tags need a key; the bundle files, loaded by <script> tags, need none', async () => {
    const server = await areaApp('agent-server', { dataDir: null, env: { AGENTPLANE_CONFIG: uiProject(), AGENTPLANE_AGENT_SERVER_AUTH: '1' } });
    try {
      assert.equal(
        (await server.fetch(`${server.url}/ui/my-agent`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name":"weather"}' }))
          .status,
        401,
      );
      assert.equal((await server.api('/ui/my-agent', { method: 'POST', json: { name: 'weather' } })).status, 200);
      const js = await server.fetch(`${server.url}/ui/my-agent/entrypoint.js`);
      assert.equal(js.status, 200);
      assert.match(await js.text(), /__LGUI_my_agent/);
    } finally {
      await server.close();
    }
  });
});

describe('generative UI with custom auth (auth.path)', () => {
  it("the tags are asked of the project's authenticate; the bundle files are not, as upstream", async () => {
    const auth = `${path.join(ROOT, 'test/fixtures/auth/owner-everywhere.ts')}:auth`;
    const server = await areaApp('agent-server', { dataDir: null, project: { graphs: {}, ui: { agent: './examples/ui/agent.tsx' }, auth: { path: auth } } });
    try {
      const ask = (headers: Record<string, string>) =>
        server.fetch(`${server.url}/ui/agent`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{"name":"weather"}' });
      assert.equal((await ask({})).status, 401);
      assert.equal((await ask({ Authorization: 'Bearer user-ann' })).status, 200);
      assert.equal((await server.fetch(`${server.url}/ui/agent/entrypoint.js`)).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('generative UI switched off', () => {
  it('http.disable_ui turns both operations off (404)', async () => {
    const server = await areaApp('agent-server', {
      dataDir: null,
      project: { graphs: {}, ui: { agent: './examples/ui/agent.tsx' }, http: { disable_ui: true } },
    });
    try {
      assert.equal((await server.api('/ui/agent', { method: 'POST', json: { name: 'weather' } })).status, 404);
      assert.equal((await server.fetch(`${server.url}/ui/agent/entrypoint.js`)).status, 404);
    } finally {
      await server.close();
    }
  });
});
