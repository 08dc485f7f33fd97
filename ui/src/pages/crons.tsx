// Agent server: crons — the list, a create form with a schedule picker that shows the next
// fire times (computed here with croner, the library the server schedules with), delete,
// and the runs each cron made (the runs on its thread whose metadata carries its cron_id).
import type { Cron as CronRecord, Run } from '@langchain/langgraph-sdk';
import { Cron } from 'croner';
import { useState } from 'preact/hooks';
import { agent, hasOperation } from '../api';
import { ConfirmButton, ErrorNotice, NotAvailable, Section, Status, Time, short, useAction, useLoad } from '../components';
import { AssistantName } from '../assistantName';

const PRESETS = [
  { label: 'Every minute', schedule: '* * * * *' },
  { label: 'Every 5 minutes', schedule: '*/5 * * * *' },
  { label: 'Every hour', schedule: '0 * * * *' },
  { label: 'Every day at 09:00', schedule: '0 9 * * *' },
  { label: 'Weekdays at 09:00', schedule: '0 9 * * 1-5' },
  { label: 'Every 10 seconds', schedule: '*/10 * * * * *' },
];

/** The next fire times of a schedule, or why it is not one (croner's message). */
export function nextFireTimes(schedule: string, timezone: string, count = 3): { times: Date[]; problem?: string } {
  try {
    const times = new Cron(schedule, { paused: true, timezone: timezone || 'UTC' }).nextRuns(count);
    return { times };
  } catch (error) {
    return { times: [], problem: (error as Error).message };
  }
}

export function CronsPage() {
  const [tick, setTick] = useState(0);
  const list = useLoad(() => agent().crons.search({ limit: 100 }), [tick], 5000);
  if (!hasOperation('POST /runs/crons/search')) return <NotAvailable what="Crons" />;
  const crons = list.data ?? [];
  return (
    <>
      <h1>Crons</h1>
      <div class="columns">
        <Section title="Scheduled">
          <ErrorNotice error={list.error} />
          {crons.length === 0 && !list.loading && <p class="muted">No crons.</p>}
          <ol class="crons" aria-label="Crons">
            {crons.map((c) => (
              <CronItem key={c.cron_id} cron={c} onDeleted={() => setTick((t) => t + 1)} />
            ))}
          </ol>
        </Section>
        <Section title="New cron">
          <CronForm onCreated={() => setTick((t) => t + 1)} />
        </Section>
      </div>
    </>
  );
}

function CronItem({ cron, onDeleted }: { cron: CronRecord; onDeleted: () => void }) {
  const remove = useAction(async () => {
    await agent().crons.delete(cron.cron_id);
    onDeleted();
  });
  const threadId = cron.thread_id;
  // its runs: on its thread, those it made (a thread may have runs of its own too)
  const runs = useLoad(() => (threadId ? agent().runs.list(threadId, { limit: 20 }) : Promise.resolve([] as Run[])), [threadId], 3000);
  const made = (runs.data ?? []).filter((r) => (r.metadata as { cron_id?: string } | null)?.cron_id === cron.cron_id);
  const next = (cron as { next_run_date?: string | null }).next_run_date;
  return (
    <li class="cron">
      <div class="section-head">
        <h3>
          <code>{cron.schedule}</code> <span class="muted">assistant</span> <AssistantName id={cron.assistant_id} />
        </h3>
        <ConfirmButton label="Delete" question="Delete this cron?" onConfirm={() => remove.run()} busy={remove.busy} />
      </div>
      <p class="muted">
        next <Time iso={next} />
        {threadId ? (
          <>
            {' '}
            · thread <a href={`/dashboard/threads/${threadId}`}>{short(threadId)}</a>
          </>
        ) : (
          ' · a new thread per run'
        )}
      </p>
      <ErrorNotice error={remove.error ?? runs.error} />
      {threadId && (
        <ul class="cron-runs" aria-label={`Runs of cron ${short(cron.cron_id)}`}>
          {made.length === 0 && <li class="muted">No runs yet.</li>}
          {made.map((r) => (
            <li key={r.run_id}>
              <Status value={r.status} /> <code>{short(r.run_id)}</code> <Time iso={r.created_at} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function CronForm({ onCreated }: { onCreated: () => void }) {
  const assistants = useLoad(() => agent().assistants.search({ limit: 100 }), []);
  const [assistantId, setAssistantId] = useState('');
  const [schedule, setSchedule] = useState(PRESETS[0].schedule);
  const [timezone, setTimezone] = useState('UTC');
  const [message, setMessage] = useState('');
  const { times, problem } = nextFireTimes(schedule, timezone);
  const create = useAction(async () => {
    const client = agent();
    // the cron gets a thread of its own, so its runs (and their results) can be looked at
    const thread = await client.threads.create({ metadata: { source: 'agentplane dashboard cron' } });
    const input = message.trim() ? { messages: [{ role: 'user', content: message.trim() }] } : {};
    await client.crons.createForThread(thread.thread_id, assistantId, { schedule, timezone, input });
    setMessage('');
    onCreated();
  });
  return (
    <form
      class="cron-form"
      aria-label="New cron"
      onSubmit={(e) => {
        e.preventDefault();
        if (assistantId && !problem) create.run();
      }}
    >
      <div class="field">
        <label for="cron-assistant">Assistant</label>
        <select id="cron-assistant" value={assistantId} onChange={(e) => setAssistantId((e.target as HTMLSelectElement).value)}>
          <option value="">choose…</option>
          {(assistants.data ?? []).map((a) => (
            <option key={a.assistant_id} value={a.assistant_id}>
              {a.name || a.assistant_id}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="cron-preset">Repeat</label>
        <select
          id="cron-preset"
          value={PRESETS.some((p) => p.schedule === schedule) ? schedule : ''}
          onChange={(e) => (e.target as HTMLSelectElement).value && setSchedule((e.target as HTMLSelectElement).value)}
        >
          {PRESETS.map((p) => (
            <option key={p.schedule} value={p.schedule}>
              {p.label}
            </option>
          ))}
          <option value="">custom (type below)</option>
        </select>
      </div>
      <div class="field">
        <label for="cron-schedule">Schedule (cron: minute hour day month weekday, or seconds first)</label>
        <input
          id="cron-schedule"
          value={schedule}
          aria-invalid={Boolean(problem)}
          aria-describedby="cron-next"
          onInput={(e) => setSchedule((e.target as HTMLInputElement).value)}
        />
      </div>
      <div class="field">
        <label for="cron-timezone">Time zone (IANA)</label>
        <input id="cron-timezone" value={timezone} onInput={(e) => setTimezone((e.target as HTMLInputElement).value)} />
      </div>
      <div id="cron-next" class={problem ? 'error' : 'hint'} aria-live="polite">
        {problem ? (
          `Not a schedule: ${problem}`
        ) : (
          <>
            Next fire times:
            <ol aria-label="Next fire times">
              {times.map((t) => (
                <li key={t.toISOString()}>
                  <Time iso={t.toISOString()} />
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
      <div class="field">
        <label for="cron-message">Message each run sends (optional)</label>
        <input id="cron-message" value={message} onInput={(e) => setMessage((e.target as HTMLInputElement).value)} />
      </div>
      <ErrorNotice error={create.error} />
      <div class="buttons">
        <button type="submit" class="primary" disabled={create.busy || !assistantId || Boolean(problem)}>
          Create cron
        </button>
      </div>
    </form>
  );
}
