// Path routing under /dashboard/ with the History API. Hand-written (30 lines) rather than a router
// package: the dashboard has a dozen flat routes and needs nothing else from one.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useLocation(): { path: string; query: URLSearchParams } {
  const read = () => ({ path: location.pathname.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) });
  const [current, setCurrent] = useState(read);
  useEffect(() => {
    const update = () => setCurrent(read());
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return current;
}

/** Matches `/dashboard/deployments/:id` against a path; returns the parameters or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = (BASE + pattern).split('/');
  const have = path.split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** Same-origin link clicks stay in the app (modifier keys still open new tabs). */
export function interceptLinks(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const anchor = (event.target as Element | null)?.closest?.('a');
  if (!anchor || anchor.target || anchor.origin !== location.origin || !anchor.pathname.startsWith(BASE)) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
