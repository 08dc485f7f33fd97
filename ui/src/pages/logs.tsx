// The build and server logs of a revision (listRevisionLogs): followed live while the revision
// is in progress, and the server log while it serves.
import { operations } from 'virtual:spec';
import { useState } from 'preact/hooks';
import { call } from '../api';
import { ErrorNotice, NotAvailable, settled, useLoad } from '../components';
import type { Revision, RevisionLogs as RevisionLogBody } from '../contract';

const LOGS = 'GET /v2/deployments/{deployment_id}/revisions/{revision_id}/logs';
/** The two logs a revision has (`type` of listRevisionLogs): the build's, then the server's. */
const KINDS = [
  { type: 'build', label: 'Build log' },
  { type: 'deploy', label: 'Server log' },
] as const;
/** The newest lines of a log that can grow long; the build log is read from its start. */
const TAIL = 500;

/** Lines to show: the time in the user's zone, the level when it is not INFO, the message. */
export function linesOf(body: RevisionLogBody): string[] {
  // a line's timestamp may be null (the spec's RevisionLogLine): shown without one
  return body.logs.map(
    (line) =>
      `${line.timestamp ? new Date(line.timestamp).toLocaleTimeString() : ''}  ${line.level && line.level !== 'INFO' ? `${line.level}  ` : ''}${line.message}`,
  );
}

export function RevisionLogs({ deploymentId, revision }: { deploymentId: string; revision: Revision }) {
  const [kind, setKind] = useState<(typeof KINDS)[number]['type']>('build');
  if (!operations.includes(LOGS)) return <NotAvailable what="Revision logs" />;
  const base = `/v2/deployments/${deploymentId}/revisions/${revision.id}/logs`;
  // the server log is read newest first and shown oldest first, so its tail is what is seen
  const query = kind === 'build' ? `type=build&limit=1000` : `type=deploy&order=desc&limit=${TAIL}`;
  return (
    <div class="logs">
      <div role="tablist" aria-label="Log kind">
        {KINDS.map((k) => (
          <button key={k.type} type="button" role="tab" aria-selected={k.type === kind} onClick={() => setKind(k.type)}>
            {k.label}
          </button>
        ))}
      </div>
      <LogView path={`${base}?${query}`} newestFirst={kind === 'deploy'} live={!settled(revision.status) || kind === 'deploy'} />
    </div>
  );
}

function LogView({ path, live, newestFirst }: { path: string; live: boolean; newestFirst: boolean }) {
  // polled while the revision builds (and, for a serving revision, its server log grows)
  const log = useLoad(() => call<RevisionLogBody>('GET', path), [path, live], live ? 1000 : undefined);
  const read = log.data === undefined ? [] : linesOf(log.data);
  const lines = newestFirst ? read.reverse() : read;
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
