// The build and server logs of a revision, when this server's spec has log operations under
// the revision (the local deployer adds them); followed live while the revision is in progress.
import { operations } from 'virtual:spec';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorNotice, NotAvailable, settled, useLoad } from '../components';
import type { Revision } from './deployments';

const PREFIX = 'GET /v2/deployments/{deployment_id}/revisions/{revision_id}/';
const logOperations = () => operations.filter((op) => op.startsWith(PREFIX) && /log/i.test(op.slice(PREFIX.length))).map((op) => op.slice(PREFIX.length));

/** Log lines from whichever shape the operation answers: text, a list, or a list under a key. */
export function linesOf(body: unknown): string[] {
  if (typeof body === 'string') return body.split('\n');
  const list = Array.isArray(body) ? body : Object.values((body ?? {}) as Record<string, unknown>).find(Array.isArray);
  if (!list) return [JSON.stringify(body)];
  return list.map((entry) => {
    if (typeof entry === 'string') return entry;
    const e = entry as Record<string, unknown>;
    const text = e.message ?? e.line ?? e.text ?? e.msg;
    const time = e.timestamp ?? e.time;
    return `${time ? `${new Date(String(time)).toLocaleTimeString()}  ` : ''}${typeof text === 'string' ? text : JSON.stringify(e)}`;
  });
}

export function RevisionLogs({ deploymentId, revision }: { deploymentId: string; revision: Revision }) {
  const kinds = logOperations();
  const [kind, setKind] = useState(kinds[0]);
  if (!kind) return <NotAvailable what="Revision logs" />;
  return (
    <div class="logs">
      <div role="tablist" aria-label="Log kind">
        {kinds.map((k) => (
          <button key={k} type="button" role="tab" aria-selected={k === kind} onClick={() => setKind(k)}>
            {k.replace(/[_-]/g, ' ')}
          </button>
        ))}
      </div>
      <LogView path={`/v2/deployments/${deploymentId}/revisions/${revision.id}/${kind}`} live={!settled(revision.status)} />
    </div>
  );
}

function LogView({ path, live }: { path: string; live: boolean }) {
  // keeps polling while the revision builds; one more load after it settles
  const log = useLoad(() => call<unknown>('GET', path), [path, live], live ? 1000 : undefined);
  const lines = log.data === undefined ? [] : linesOf(log.data);
  return (
    <>
      <ErrorNotice optional error={log.error} />
      <pre class="log" tabIndex={0} aria-label="Log lines" aria-live={live ? 'polite' : undefined}>
        {lines.length ? lines.join('\n') : log.loading ? 'Loading…' : '(empty)'}
      </pre>
      {live && <p class="muted">Following live…</p>}
    </>
  );
}
