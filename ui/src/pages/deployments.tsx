// Control plane: the deployments list with filters and paging, the create form, and a
// deployment's page (fields, masked secrets, revisions timeline, logs, patch, redeploy, delete).
import { useState } from 'preact/hooks';
import { controlPlaneSchemas } from 'virtual:spec';
import { call } from '../api';
import type { Deployment, DeploymentList, Revision, RevisionList } from '../contract';
import { ConfirmButton, ErrorNotice, Field, Raw, Section, Status, Time, settled, short, useAction, useLoad } from '../components';
import { navigate } from '../router';
import { SchemaForm } from '../schemaForm';
import { RevisionLogs } from './logs';

const PAGE = 20;
const enumOf = (name: string) => (controlPlaneSchemas[name]?.enum ?? []) as string[];

export function DeploymentsPage({ query }: { query: URLSearchParams }) {
  const filters = { name_contains: query.get('name_contains') ?? '', status: query.get('status') ?? '', deployment_type: query.get('deployment_type') ?? '' };
  const offset = Number(query.get('offset') ?? 0) || 0;
  const go = (next: Record<string, string | number>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...filters, offset, ...next })) if (v !== '' && v !== 0) params.set(k, String(v));
    navigate(`/dashboard/deployments${params.size ? `?${params}` : ''}`);
  };
  const search = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  for (const [k, v] of Object.entries(filters)) if (v) search.set(k, v);
  const list = useLoad(() => call<DeploymentList>('GET', `/v2/deployments?${search}`), [search.toString()], 3000);
  const rows = list.data?.resources ?? [];

  const onFilter = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.target as HTMLFormElement);
    go({
      name_contains: String(form.get('name_contains') ?? ''),
      status: String(form.get('status') ?? ''),
      deployment_type: String(form.get('deployment_type') ?? ''),
      offset: 0,
    });
  };
  return (
    <>
      <div class="page-head">
        <h1>Deployments</h1>
        <a class="button primary" href="/dashboard/deployments/new">
          New deployment
        </a>
      </div>
      <form class="filters" onSubmit={onFilter} aria-label="Filter deployments">
        <label>
          Name contains <input name="name_contains" defaultValue={filters.name_contains} />
        </label>
        <label>
          Deployment status
          <select name="status" defaultValue={filters.status}>
            <option value="">any</option>
            {enumOf('DeploymentStatus').map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Type
          <select name="deployment_type" defaultValue={filters.deployment_type}>
            <option value="">any</option>
            {enumOf('DeploymentType').map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      <ErrorNotice error={list.error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Deployments</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Deployment status</th>
              <th scope="col">Latest revision</th>
              <th scope="col">Source</th>
              <th scope="col">Type</th>
              <th scope="col">Updated</th>
              <th scope="col">Record</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id}>
                <td>
                  <a href={`/dashboard/deployments/${d.id}`}>{d.name}</a>
                </td>
                <LatestRevisionCells deployment={d} />
                <td>{d.source}</td>
                <td>{d.source_config.deployment_type ?? '—'}</td>
                <td>
                  <Time iso={d.updated_at} />
                </td>
                <td>
                  <Raw value={d} label="JSON" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {!list.loading && rows.length === 0 && !list.error && <p class="muted">No deployments{offset ? ' on this page' : ''}.</p>}
      <nav class="pager" aria-label="Pages">
        <button type="button" disabled={offset === 0} onClick={() => go({ offset: Math.max(0, offset - PAGE) })}>
          Previous page
        </button>
        <span>{rows.length ? `${offset + 1}–${offset + rows.length}` : ''}</span>
        <button type="button" disabled={rows.length < PAGE} onClick={() => go({ offset: offset + PAGE })}>
          Next page
        </button>
      </nav>
    </>
  );
}

/** A list row's status and its latest revision's: the revision is loaded per row (the list does not carry its status). */
function LatestRevisionCells({ deployment: d }: { deployment: Deployment }) {
  const latest = useLoad(
    () => (d.latest_revision_id ? call<Revision>('GET', `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`) : Promise.resolve(undefined)),
    [d.id, d.latest_revision_id, d.updated_at],
    (r) => (r && !settled(r.status) ? 1000 : undefined),
  );
  return (
    <>
      <td>
        <Status value={d.status} />
      </td>
      <td>
        {latest.data && <Status value={latest.data.status} />} <code title={d.latest_revision_id ?? undefined}>{short(d.latest_revision_id)}</code>
      </td>
    </>
  );
}

/**
 * The deployment's status and its latest revision's, side by side and each named: they are
 * different things (the record READY for use, while its latest revision BUILD_FAILED and
 * nothing serves), and neither stands in for the other.
 */
export function DeploymentHealth({ deployment: d, latest }: { deployment: Deployment; latest: Revision | undefined }) {
  return (
    <span class="health">
      <span class="label">deployment</span> <Status value={d.status} />
      {latest && (
        <>
          {' '}
          <span class="label">latest revision</span> <Status value={latest.status} />
        </>
      )}
    </span>
  );
}

export function NewDeploymentPage() {
  return (
    <>
      <h1>New deployment</h1>
      <p class="muted">The fields come from the spec's DeploymentCreate schema; the server checks the rules between them.</p>
      <SchemaForm
        schema="DeploymentCreate"
        label="New deployment"
        submitLabel="Create deployment"
        initial={{ source: 'github', source_config: {}, source_revision_config: {} }}
        onSubmit={async (body) => {
          const created = await call<Deployment>('POST', '/v2/deployments', body);
          navigate(`/dashboard/deployments/${created.id}`);
        }}
        onCancel={() => navigate('/dashboard/deployments')}
      />
    </>
  );
}

export function DeploymentPage({ id }: { id: string }) {
  // the page follows live: fast while a revision is in progress, slowly otherwise
  const revisions = useLoad(
    () => call<RevisionList>('GET', `/v2/deployments/${id}/revisions?limit=100`),
    [id],
    (data) => (data.resources.every((r) => settled(r.status)) ? 3000 : 400),
  );
  const deployment = useLoad(() => call<Deployment>('GET', `/v2/deployments/${id}`), [id, revisions.data]);
  const [editing, setEditing] = useState(false);
  const [logsOf, setLogsOf] = useState<string | null>(null);
  const remove = useAction(async () => {
    await call('DELETE', `/v2/deployments/${id}`);
    navigate('/dashboard/deployments');
  });
  const redeploy = useAction(async (revisionId: string) => {
    await call('POST', `/v2/deployments/${id}/revisions/${revisionId}/redeploy`);
    revisions.reload();
    deployment.reload();
  });
  const d = deployment.data;
  if (!d) return <ErrorNotice error={deployment.error} />;
  const customUrl = d.source_config.custom_url;
  const revisionList = revisions.data?.resources ?? [];
  const latest = revisionList.find((r) => r.id === d.latest_revision_id);
  // the deployment answers at its URL once a revision of it has deployed (an earlier one keeps serving while a later one fails)
  const serving = revisionList.some((r) => r.status === 'DEPLOYED') || Boolean(d.active_revision_id);
  return (
    <>
      <div class="page-head">
        <h1>
          {d.name} <DeploymentHealth deployment={d} latest={latest} />
        </h1>
        <div class="actions">
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
            {editing ? 'Close edit' : 'Edit (patch)'}
          </button>
          <ConfirmButton label="Delete" question={`Delete ${d.name}?`} onConfirm={() => remove.run()} busy={remove.busy} />
        </div>
      </div>
      <ErrorNotice error={remove.error ?? redeploy.error ?? deployment.error} />
      {editing && (
        <Section title="Patch deployment">
          <p class="muted">Fill only what should change; empty fields are left as they are (current values shown greyed).</p>
          <SchemaForm
            schema="DeploymentPatch"
            label="Patch deployment"
            submitLabel="Save changes"
            placeholders={d as unknown as Record<string, unknown>}
            onSubmit={async (body) => {
              await call('PATCH', `/v2/deployments/${id}`, body);
              setEditing(false);
              deployment.reload();
              revisions.reload();
            }}
            onCancel={() => setEditing(false)}
          />
        </Section>
      )}
      <div class="columns">
        <Section title="Details">
          <dl class="fields">
            <Field label="Id">
              <code>{d.id}</code>
            </Field>
            <Field label="Source">{d.source}</Field>
            <Field label="Type">{d.source_config.deployment_type}</Field>
            <Field label="URL">
              {customUrl && !serving ? (
                // a URL nothing answers at yet is not offered as a link
                <>
                  <code>{customUrl}</code> <span class="muted">(not serving: no revision has deployed)</span>
                </>
              ) : customUrl && /^https?:\/\//i.test(customUrl) ? (
                <a href={customUrl} target="_blank" rel="noreferrer">
                  {customUrl}
                </a>
              ) : (
                // a URL of another scheme (stored before the API refused them) is shown, never a link
                customUrl && <code>{customUrl}</code>
              )}
            </Field>
            {Object.entries(d.source_revision_config)
              .filter(([, v]) => v !== null && v !== undefined)
              .map(([k, v]) => (
                <Field key={k} label={k}>
                  <code>{String(v)}</code>
                </Field>
              ))}
            {(['repo_url', 'install_command', 'build_command', 'build_on_push'] as const)
              .filter((k) => d.source_config[k] !== null && d.source_config[k] !== undefined)
              .map((k) => (
                <Field key={k} label={k}>
                  <code>{String(d.source_config[k])}</code>
                </Field>
              ))}
            <Field label="Image version">{d.image_version}</Field>
            <Field label="Active revision">
              <code>{short(d.active_revision_id)}</code>
            </Field>
            <Field label="Created">
              <Time iso={d.created_at} />
            </Field>
            <Field label="Updated">
              <Time iso={d.updated_at} />
            </Field>
          </dl>
          <h3>Secrets</h3>
          {d.secrets.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <ul class="secrets">
              {d.secrets.map((s) => (
                <li key={s.name}>
                  <code>{s.name}</code> = <span aria-label="value hidden">••••••••</span>
                </li>
              ))}
            </ul>
          )}
          <Raw value={d} />
        </Section>
        <Section title="Revisions">
          <ErrorNotice error={revisions.error} />
          <ol class="timeline" aria-label="Revisions, newest first">
            {revisionList.map((r) => (
              <li key={r.id} class={`revision tone-${r.status}`} data-revision={r.id}>
                <div class="revision-head">
                  <Status value={r.status} />
                  <code title={r.id}>{short(r.id)}</code>
                  {r.id === d.active_revision_id && <span class="tag">active</span>}
                  <span class="times">
                    created <Time iso={r.created_at} /> · changed <Time iso={r.updated_at} />
                  </span>
                </div>
                {r.status_message && <p class="status-message">{r.status_message}</p>}
                <div class="revision-actions">
                  <button type="button" onClick={() => setLogsOf(logsOf === r.id ? null : r.id)} aria-expanded={logsOf === r.id}>
                    {logsOf === r.id ? 'Hide logs' : 'Logs'}
                  </button>
                  {settled(r.status) && (
                    <button type="button" onClick={() => redeploy.run(r.id)} disabled={redeploy.busy}>
                      Redeploy
                    </button>
                  )}
                  <Raw value={r} />
                </div>
                {logsOf === r.id && <RevisionLogs deploymentId={id} revision={r} />}
              </li>
            ))}
          </ol>
        </Section>
      </div>
    </>
  );
}
