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

const NAV = [
  { href: '/dashboard/deployments', label: 'Deployments' },
  { href: '/dashboard/providers', label: 'OAuth providers' },
  { href: '/dashboard/assistants', label: 'Assistants' },
  { href: '/dashboard/threads', label: 'Threads' },
  { href: '/dashboard/store', label: 'Store' },
  { href: '/dashboard/crons', label: 'Crons' },
];

/** Set by the server in the page it serves (src/runtime/dashboard.ts). */
const MOCK = document.querySelector('meta[name="agentplane-mode"]')?.getAttribute('content') === 'mock';

function Page({ path, query }: { path: string; query: URLSearchParams }) {
  let p: Record<string, string> | null;
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
        No dashboard page at <code>{path}</code>. <a href="/dashboard/deployments">Deployments</a>
      </p>
    </>
  );
}

function KeyForm({ onChange }: { onChange: () => void }) {
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
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autoComplete="off" value={draft} onInput={(e) => setDraft((e.target as HTMLInputElement).value)} />
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
    if (path === '/dashboard' || path === '/') navigate('/dashboard/deployments', true);
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
        <a class="brand" href="/dashboard/deployments">
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
        <KeyForm onChange={() => setSession((s) => s + 1)} />
      </header>
      {MOCK && (
        <p class="mock-banner" role="status">
          Mock mode: every answer is an example from the spec; nothing is stored or run.
        </p>
      )}
      <main id="main" ref={main} tabIndex={-1} key={session}>
        <Page path={path} query={query} />
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);
