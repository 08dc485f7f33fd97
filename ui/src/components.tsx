// Small shared pieces: status badges (text and colour), local times, the raw-JSON toggle,
// error and "not available" notices, and data-loading hooks.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { isMissingOperation, statusOf } from './api';
import { retryDelay } from './backoff';

const OK = new Set(['DEPLOYED', 'READY', 'success', 'idle', 'completed']);
const FAILED = /FAILED|^error$|^timeout$|^INTERRUPTED$|^UNKNOWN$/;
const WARN = new Set(['interrupted', 'SKIPPED', 'AWAITING_DELETE', 'UNUSED']);

export function tone(status: string): 'ok' | 'failed' | 'warn' | 'busy' {
  if (OK.has(status)) return 'ok';
  if (FAILED.test(status)) return 'failed';
  if (WARN.has(status)) return 'warn';
  return 'busy';
}

/** Finished: nothing will change the status by itself any more. */
export const settled = (status: string) => tone(status) !== 'busy';

export function Status({ value }: { value: string | null | undefined }) {
  const text = value ?? 'unknown';
  return <span class={`status status-${tone(text)}`}>{text}</span>;
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  const date = new Date(iso);
  return (
    <time dateTime={iso} title={iso}>
      {date.toLocaleString()}
    </time>
  );
}

/** Every record can be seen as the JSON the API returned, on request. */
export function Raw({ value, label = 'Raw JSON' }: { value: unknown; label?: string }) {
  return (
    <details class="raw">
      <summary>{label}</summary>
      <pre>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

/** `optional`: the operation may be missing on this server, and a 404/405 says just that. */
export function ErrorNotice({ error, optional }: { error: unknown; optional?: boolean }) {
  if (!error) return null;
  if (optional && isMissingOperation(error)) return <NotAvailable />;
  const status = statusOf(error);
  if (status === 401 || status === 403)
    return (
      <p class="error" role="alert">
        {status === 401 ? 'This needs an API key: enter it at the top of the page.' : 'The API key was refused.'} (
        {error instanceof Error ? error.message : String(error)})
      </p>
    );
  return (
    <p class="error" role="alert">
      {error instanceof Error ? error.message : String(error)}
    </p>
  );
}

export function NotAvailable({ what = 'This' }: { what?: string }) {
  return <p class="notice">{what} is not available on this server.</p>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <div class="section-head">
        <h2>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children ?? <span class="muted">—</span>}</dd>
    </>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads with `load` whenever `deps` change; with `every` (ms, or ms chosen from the data,
 * undefined to stop), loads again after that long, keeping the last data on screen. After a
 * failure it tries again after retryDelay (longer after each failure in a row).
 */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], every?: number | ((data: T) => number | undefined)): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    const run = async () => {
      try {
        const data = await loadRef.current();
        if (!live) return;
        failures = 0;
        setState({ data, loading: false });
        const wait = typeof every === 'function' ? every(data) : every;
        if (wait) timer = setTimeout(run, wait);
      } catch (error) {
        if (!live) return;
        setState((s) => ({ data: s.data, error, loading: false }));
        // a failing load is tried again more and more slowly (the server may come back), unless the operation is missing
        if (every && !isMissingOperation(error)) timer = setTimeout(run, retryDelay(++failures));
      }
    };
    setState((s) => ({ ...s, loading: true }));
    void run();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** A button that runs an async action, disables itself meanwhile and reports failures. */
export function useAction<A extends unknown[]>(
  action: (...args: A) => Promise<void>,
): { run: (...args: A) => void; busy: boolean; error: unknown; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = (...args: A) => {
    setBusy(true);
    setError(null);
    action(...args)
      .catch((e) => setError(e))
      .finally(() => setBusy(false));
  };
  return { run, busy, error, clear: () => setError(null) };
}

/** Inline confirmation: the first press asks, the second (on the named button) acts. */
export function ConfirmButton({ label, question, onConfirm, busy }: { label: string; question: string; onConfirm: () => void; busy?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)} disabled={busy}>
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label="Confirm">
      <span>{question}</span>
      <button type="button" class="danger" onClick={() => (setAsking(false), onConfirm())} autoFocus>
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** An id shortened to its end: time-ordered ids (run and checkpoint ids) share their start. */
export const short = (id: string | null | undefined) => (id ? `…${id.slice(-8)}` : '—');
