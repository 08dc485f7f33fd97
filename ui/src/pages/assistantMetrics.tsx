// An assistant's run metrics over a chosen window (GET /assistants/{id}/metrics): how many
// runs, how many failed, and how long the finished ones took; refreshed while the page is open
// so the chat's runs show up.
import { useState } from 'preact/hooks';
import { call, hasOperation } from '../api';
import { ErrorNotice, Field, NotAvailable, Section, useLoad } from '../components';
import type { AssistantRunMetrics } from '../contract';

const WINDOWS = [
  { seconds: 3600, label: 'last hour' },
  { seconds: 86_400, label: 'last 24 hours' },
  { seconds: 604_800, label: 'last 7 days' },
];
const REFRESH_MS = 5000;

const percent = (rate: number | null) => (rate === null ? undefined : `${(rate * 100).toFixed(rate * 100 >= 10 || rate === 0 ? 0 : 1)}%`);
const duration = (ms: number | null) => (ms === null ? undefined : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

/** `refresh`: changes when a run of the page ended (a resume's too), so its figures come at once. */
export function AssistantMetrics({ id, refresh = 0 }: { id: string; refresh?: number }) {
  const [windowS, setWindowS] = useState(WINDOWS[0].seconds);
  const available = hasOperation('GET /assistants/{assistant_id}/metrics');
  const metrics = useLoad(
    () => (available ? call<AssistantRunMetrics>('GET', `/assistants/${encodeURIComponent(id)}/metrics?window_s=${windowS}`) : Promise.resolve(null)),
    [id, windowS, refresh],
    REFRESH_MS,
  );
  const m = metrics.data;
  const picker = (
    <label>
      Window{' '}
      <select aria-label="Metrics window" value={windowS} onChange={(e) => setWindowS(Number((e.target as HTMLSelectElement).value))}>
        {WINDOWS.map((w) => (
          <option key={w.seconds} value={w.seconds}>
            {w.label}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <Section title="Run metrics" actions={available ? picker : undefined}>
      {!available ? (
        <NotAvailable what="Run metrics" />
      ) : (
        <>
          <ErrorNotice error={metrics.error} />
          {m ? (
            <dl class="fields" aria-label="Run metrics of the window">
              <Field label="Runs">{String(m.run_count)}</Field>
              <Field label="Finished">{String(m.finished_count)}</Field>
              <Field label="Failed">{String(m.error_count)}</Field>
              <Field label="Error rate">{percent(m.error_rate)}</Field>
              <Field label="p50 duration">{duration(m.p50_ms)}</Field>
              <Field label="p95 duration">{duration(m.p95_ms)}</Field>
              <Field label="By status">
                {Object.entries(m.by_status)
                  .filter(([, n]) => n > 0)
                  .map(([status, n]) => `${status} ${n}`)
                  .join(', ') || undefined}
              </Field>
            </dl>
          ) : (
            !metrics.error && <p class="muted">Loading…</p>
          )}
        </>
      )}
    </Section>
  );
}
