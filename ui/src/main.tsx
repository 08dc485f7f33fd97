// The agentplane dashboard: one page app under /dashboard, served by agentplane itself.
import { RunPage } from './pages/run';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { apiKey } from './api';
import { interceptLinks, match, navigate, useLocation } from './router';
import { DeploymentPage, DeploymentsPage, NewDeploymentPage } from './pages/deployments';
import { ProvidersPage } from './pages/providers';
import { AssistantPage, AssistantsPage } from './pages/assistants';
import { ThreadPage, ThreadsPage } from './pages/threads';
import { StorePage } from './pages/store';
import { CronsPage } from './pages/crons';
import './style.css';

// the agent server first: its pages need no key by default; the control plane's ask for it
const NAV = [
  { href: '/dashboard/assistants', label: 'Assistants' },
  { href: '/dashboard/threads', label: 'Threads' },
  { href: '/dashboard/store', label: 'Store' },
  { href: '/dashboard/crons', label: 'Crons' },
  { href: '/dashboard/deployments', label: 'Deployments', controlPlane: true },
  { href: '/dashboard/providers', label: 'OAuth providers', controlPlane: true },
];

/** The first page: an assistant and its graph, as Studio opens. */
const HOME = '/dashboard/assistants';

/** Set by the server in the page it serves (src/runtime/pages/dashboard.ts). */
const MOCK = document.querySelector('meta[name="agentplane-mode"]')?.getAttribute('content') === 'mock';

function Page({ path, query, onKey }: { path: string; query: URLSearchParams; onKey: () => void }) {
  let p: Record<string, string> | null;
  // the control plane always needs the API key: asked for before its page calls it, not after a 401
  if (NAV.some((n) => n.controlPlane && path.startsWith(n.href)) && !apiKey.get()) return <KeyNeeded onKey={onKey} />;
  if (match('/deployments', path)) return <DeploymentsPage query={query} />;
  if (match('/deployments/new', path)) return <NewDeploymentPage />;
  if ((p = match('/deployments/:id', path))) return <DeploymentPage id={p.id} key={p.id} />;
  if (match('/providers', path)) return <ProvidersPage />;
  if (match('/assistants', path)) return <AssistantsPage />;
  if ((p = match('/assistants/:id', path))) return <AssistantPage id={p.id} query={query} key={p.id} />;
  if (match('/threads', path)) return <ThreadsPage query={query} />;
  if ((p = match('/threads/:id', path))) return <ThreadPage id={p.id} key={p.id} />;
  if ((p = match('/threads/:id/runs/:run', path))) return <RunPage threadId={p.id} runId={p.run} key={p.run} />;
  if (match('/store', path)) return <StorePage query={query} />;
  if (match('/crons', path)) return <CronsPage />;
  return (
    <>
      <h1>Not found</h1>
      <p>
        No dashboard page at <code>{path}</code>. <a href={HOME}>Assistants</a>
      </p>
    </>
  );
}

/** A control-plane page opened without the key: what it needs and where to enter it. */
function KeyNeeded({ onKey }: { onKey: () => void }) {
  return (
    <>
      <h1>API key needed</h1>
      <p>
        The control plane (deployments, OAuth providers) answers only with an API key. The server printed one on its first start; it is kept in the data
        directory (<code>api-keys.json</code>).
      </p>
      <KeyForm onChange={onKey} id="api-key-page" />
      <p class="muted">
        The agent server's pages (<a href={HOME}>assistants</a>, <a href="/dashboard/threads">threads</a>) need none unless the server was started with
        agent-server auth.
      </p>
    </>
  );
}

function KeyForm({ onChange, id = 'api-key' }: { onChange: () => void; id?: string }) {
  const [key, setKey] = useState(apiKey.get());
  const [draft, setDraft] = useState('');
  if (key)
    return (
      <div class="key">
        <span>API key set (…{key.slice(-4)})</span>
        <button type="button" onClick={() => (apiKey.set(''), setKey(''), onChange())}>
          Forget key
        </button>
      </div>
    );
  return (
    <form
      class="key"
      aria-label="Enter the API key"
      onSubmit={(e) => {
        e.preventDefault();
        apiKey.set(draft.trim());
        setKey(draft.trim());
        setDraft('');
        onChange();
      }}
    >
      <label for={id}>API key</label>
      <input id={id} type="password" autoComplete="off" value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
      <button type="submit">Use key</button>
    </form>
  );
}

function App() {
  const { path, query } = useLocation();
  const [session, setSession] = useState(0);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (path === '/dashboard' || path === '/') navigate(HOME, true);
  }, [path]);
  useEffect(() => {
    const heading = NAV.find((n) => path.startsWith(n.href))?.label ?? 'Dashboard';
    document.title = `${heading} · agentplane`;
    // a page change moves focus to the content, as a page load would for a screen reader
    if (!first.current) main.current?.focus();
    first.current = false;
  }, [path]);
  return (
    <div onClick={interceptLinks}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header>
        <a class="brand" href={HOME}>
          agentplane
        </a>
        <nav aria-label="Main">
          {NAV.map((n) => (
            <a key={n.href} href={n.href} aria-current={path.startsWith(n.href) ? 'page' : undefined}>
              {n.label}
            </a>
          ))}
          <a href="/docs">API reference</a>
        </nav>
        <KeyForm key={session} onChange={() => setSession((s) => s + 1)} />
      </header>
      {MOCK && (
        <p class="mock-banner" role="status">
          Mock mode: every answer is an example from the spec; nothing is stored or run.
        </p>
      )}
      <main id="main" ref={main} tabIndex={-1} key={session}>
        <Page path={path} query={query} onKey={() => setSession((s) => s + 1)} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
