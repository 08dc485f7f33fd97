// Seeding deployments straight into PostgreSQL. Through the API a PostgreSQL server takes
// 180–350 POST/s on this machine (each create is a transaction with a name check, two
// upserts and the deployer's phase writes), so 100,000 deployments took longer than the
// phase's budget. Here the server itself makes one deployment (a template), the bench waits
// until the deployer has rolled it out (so no seeded record has deployer work pending), and
// copies its two rows — the deployment and its revision, as the server wrote them — with
// one INSERT … SELECT generate_series per chunk, replacing only the deployment id, the
// revision id and the name (which also appears in `tenant_name` and the repository URL).
// The copies are textual: every field and its key order are the template's, and the real
// columns the server queries (`tenant_id`, `tenant_name`, `status`, `deployment_id`, the
// timestamps) are read from each copy's document as the server writes them (see
// src/adapters/postgres/pgTables.ts), so the server's own queries see them as real deployments;
// seedDeployments checks that they do.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { expectStatus, type Agentplane } from './agentplane.ts';
import { deploymentBody } from './http.ts';
import { delay } from './proc.ts';

/** The tables of the control plane's collections (src/adapters/embedded/collectionControlPlane.ts). */
const DEPLOYMENTS = 'agentplane_deployments';
const REVISIONS = 'agentplane_revisions';
/**
 * Before the per-area tables (migration 3; the baseline v0.1.0), every collection was a
 * kind of row in one JSON table: the seeder writes whichever layout the server made.
 */
const RECORDS = 'agentplane_records';
const RECORD_KINDS: Record<string, string> = { [DEPLOYMENTS]: 'cp-deployments', [REVISIONS]: 'cp-revisions' };
const CHUNK = 20_000;

export interface PgSeeder {
  /** Adds `count` deployments (the first call: one through the API, the template, and count − 1 copies). */
  seed(count: number): Promise<void>;
  /** ANALYZE, before every level's samples, so each is measured on current planner statistics. */
  analyze(): Promise<void>;
  close(): Promise<void>;
  readonly how: string;
}

export function pgSeeder(ap: Agentplane, url: string, log: (s: string) => void): PgSeeder {
  const client = new pg.Client({ connectionString: url });
  const connected = client.connect();
  const run = randomUUID().slice(0, 8);
  let template: { deployment: string; revision: string; id: string; revisionId: string; name: string } | null = null;
  let made = 0;
  /** Whether the server keeps every collection in agentplane_records (see findLayout). */
  let oneTable = false;
  /** The layout the server's migrations made, found once (the server has started: they have run). */
  let layoutFound: Promise<void> | null = null;
  const findLayout = () =>
    (layoutFound ??= connected.then(async () => {
      const { rows } = await client.query<{ tables: boolean }>(`SELECT to_regclass('${DEPLOYMENTS}') IS NOT NULL AS tables`);
      oneTable = !rows[0].tables;
    }));

  async function makeTemplate(): Promise<void> {
    const name = `seedtpl${run}`;
    const res = await ap.api('/v2/deployments', { json: deploymentBody(name) });
    expectStatus('POST /v2/deployments (template)', res, 201);
    const id = res.body.id as string;
    const deadline = performance.now() + 60_000;
    for (;;) {
      const now = await ap.api(`/v2/deployments/${id}`);
      expectStatus('GET /v2/deployments/{id} (template)', now, 200);
      if (now.body.status === 'READY' && now.body.active_revision_id && now.body.active_revision_id === now.body.latest_revision_id) break;
      if (performance.now() > deadline) throw new Error(`the template deployment was not rolled out within 60 s: ${now.text.slice(0, 300)}`);
      await delay(100);
    }
    await findLayout();
    const rows = async (table: string, id: string) =>
      (oneTable
        ? await client.query<{ doc: string }>(`SELECT doc::text AS doc FROM ${RECORDS} WHERE collection = $1 AND id = $2`, [RECORD_KINDS[table], id])
        : await client.query<{ doc: string }>(`SELECT doc::text AS doc FROM ${table} WHERE id = $1`, [id])
      ).rows[0]?.doc;
    const deployment = await rows(DEPLOYMENTS, id);
    const revisionId = (JSON.parse(deployment ?? '{}') as { latest_revision_id?: string }).latest_revision_id ?? '';
    const revision = await rows(REVISIONS, revisionId);
    if (!deployment || !revision) throw new Error(`the template's rows are not in ${DEPLOYMENTS} and ${REVISIONS} (deployment ${id}, revision ${revisionId})`);
    template = { deployment, revision, id, revisionId, name };
  }

  async function copies(from: number, to: number): Promise<void> {
    const t = template!;
    // ids: UUID-shaped text from md5 (the API validates ids as UUIDs, not their version bits)
    // each table's columns, read from the copy's document as the server derives them
    const columns: Record<string, Record<string, string>> = {
      [DEPLOYMENTS]: {
        tenant_id: `j->>'tenant_id'`,
        tenant_name: `j->>'tenant_name'`,
        name: `j->>'name'`,
        status: `j->>'status'`,
        image_version: `j->>'image_version'`,
        deployment_type: `j->'source_config'->>'deployment_type'`,
        listener_id: `j->'source_config'->>'listener_id'`,
      },
      [REVISIONS]: { deployment_id: `j->>'deployment_id'`, tenant_id: `j->>'tenant_id'`, status: `j->>'status'` },
    };
    const copied = (idOf: string) => `SELECT ${idOf} AS id, replace(replace(replace($1::text, $2, d), $3, r), $4, n)::json AS j
            FROM (SELECT md5($5 || ':d:' || i)::uuid::text AS d, md5($5 || ':r:' || i)::uuid::text AS r, $6 || i AS n
                  FROM generate_series($7::int, $8::int) AS i) AS s`;
    let sql = (table: string, _doc: string, idOf: string) => `
      INSERT INTO ${table} (id, ${Object.keys(columns[table]).join(', ')}, created_at, updated_at, doc)
      SELECT id, ${Object.values(columns[table]).join(', ')}, (j->>'created_at')::timestamptz, (j->>'updated_at')::timestamptz, j
      FROM (${copied(idOf)}) AS c`;
    const oneTableSql = (table: string, _doc: string, idOf: string) =>
      `INSERT INTO ${RECORDS} (collection, id, doc) SELECT ${pg.escapeLiteral(RECORD_KINDS[table])}, id, j FROM (${copied(idOf)}) AS c`;
    if (oneTable) sql = oneTableSql;
    const params = (doc: string) => [doc, t.id, t.revisionId, t.name, run, `seed${run}-`, from, to];
    await client.query('BEGIN');
    await client.query(sql(DEPLOYMENTS, t.deployment, 'd'), params(t.deployment));
    await client.query(sql(REVISIONS, t.revision, 'r'), params(t.revision));
    await client.query('COMMIT');
  }

  /** The server must see a copy as it sees the template: by id, by name, and in its tenant's newest-first list. */
  async function check(last: number): Promise<void> {
    const { rows } = await client.query<{ d: string }>("SELECT md5($1 || ':d:' || $2::int)::uuid::text AS d", [run, last]);
    const id = rows[0].d;
    const got = await ap.api(`/v2/deployments/${id}`);
    expectStatus(`GET /v2/deployments/{id} of a seeded copy`, got, 200);
    if (got.body.name !== `seed${run}-${last}` || got.body.status !== 'READY' || !got.body.active_revision_id)
      throw new Error(`a seeded copy reads back wrong: ${got.text.slice(0, 300)}`);
    const revisions = await ap.api(`/v2/deployments/${id}/revisions`);
    expectStatus('GET /v2/deployments/{id}/revisions of a seeded copy', revisions, 200);
    const taken = await ap.api('/v2/deployments', { json: deploymentBody(`seed${run}-${last}`) });
    expectStatus("POST /v2/deployments with a seeded copy's name (the name check must see it)", taken, 409);
    const newest = await ap.api('/v2/deployments?limit=1');
    expectStatus('GET /v2/deployments?limit=1', newest, 200);
    if (newest.body.resources[0]?.id !== id) throw new Error(`the newest deployment in the list is not the last seeded copy: ${newest.text.slice(0, 300)}`);
  }

  return {
    get how() {
      const into = oneTable ? RECORDS : `${DEPLOYMENTS} and ${REVISIONS}`;
      return `INSERT … SELECT generate_series into ${into}, copies of a deployment and its revision the server had made and rolled out`;
    },
    async seed(count: number) {
      if (count <= 0) return;
      if (!template) {
        await makeTemplate();
        count -= 1;
      }
      const started = performance.now();
      for (let from = made + 1; from <= made + count; from += CHUNK) await copies(from, Math.min(from + CHUNK - 1, made + count));
      made += count;
      if (count > 0) await check(made);
      log(`  seeded ${count} deployments (with their revisions) in PostgreSQL in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    },
    async analyze() {
      // what autovacuum does after this many changes, done now so plans do not depend on its timing
      await findLayout();
      await client.query(oneTable ? `ANALYZE ${RECORDS}` : `ANALYZE ${DEPLOYMENTS}, ${REVISIONS}`);
    },
    async close() {
      await connected.catch(() => {});
      await client.end().catch(() => {});
    },
  };
}
