// The PostgreSQL that kube-local plays in tests (test/containers/support/postgresImage.ts, the
// official image's stand-in) on this machine's podman: a data volume left by a first start cut
// short after initdb (PG_VERSION there, no host line in pg_hba.conf, no database; a kube-local
// CI run's server met exactly that: "no pg_hba.conf entry for host") is initialised again at
// the next start, so a client from outside the container reaches its database with the password.
// Run: CONTAINERS_CONF=$PWD/config/containers.conf node --import tsx --test test/adapters/deploy-targets/kubernetes/podmanCluster.postgresImage.containers.test.ts
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { podman } from '../../../containers/support.ts';
import { podmanAvailable } from '../../../containers/support/nodeImage.ts';
import { sharedPostgresImage } from '../../../containers/support/postgresImage.ts';
import { until } from '../../../containers/support/replies.ts';

const skip = podmanAvailable() ? false : 'podman is not installed';
const name = `agentplane-test-pg-${randomUUID().slice(0, 8)}`;
const DATA = '/var/lib/postgresql/data';
const PGDATA = `${DATA}/pgdata`;

after(() => {
  if (skip) return;
  podman('rm', '--force', '--ignore', name);
  podman('volume', 'rm', '--force', name);
});

test(
  'a data volume whose first start stopped after initdb is initialised again: the database answers the password from outside',
  { skip, timeout: 300_000 },
  async () => {
    const image = await sharedPostgresImage();
    // what a first start killed after initdb leaves: a cluster with only initdb's own lines in pg_hba.conf.
    // Made once more on a fresh volume if the setup's own initdb container is killed (exit 137):
    // a CI walk here saw it SIGKILLed 2 s in while other container tests ran beside it (it
    // passes alone); that is this fixture failing to be made, not the behaviour under test
    const initdbOnce = () => {
      podman('volume', 'create', '--opt', 'o=uid=999,gid=999', name);
      podman(
        'run',
        '--rm',
        '--user',
        '999',
        '-v',
        `${name}:${DATA}`,
        '--entrypoint',
        '/usr/lib/postgresql/bin/initdb',
        image,
        '-D',
        PGDATA,
        '-U',
        'agentplane',
        '--no-locale',
      );
    };
    try {
      initdbOnce();
    } catch (err) {
      if ((err as { status?: number }).status !== 137) throw err;
      podman('volume', 'rm', '--force', name);
      initdbOnce();
    }

    const password = randomUUID();
    podman(
      'run',
      '--detach',
      '--name',
      name,
      '--user',
      '999',
      '-v',
      `${name}:${DATA}`,
      '-p',
      '127.0.0.1::5432',
      '-e',
      'POSTGRES_USER=agentplane',
      '-e',
      'POSTGRES_DB=agentplane',
      '-e',
      `POSTGRES_PASSWORD=${password}`,
      '-e',
      `PGDATA=${PGDATA}`,
      image,
    );
    const port = Number(podman('port', name, '5432/tcp').split(':').pop());
    const answer = await until(
      'the database to answer',
      async () => {
        const client = new pg.Client({ host: '127.0.0.1', port, user: 'agentplane', password, database: 'agentplane' });
        try {
          await client.connect();
          return { ok: (await client.query('SELECT current_database() AS db')).rows[0].db as string };
        } catch (err) {
          // refused while it starts, or starting up (57P03); any other answer of postgres's own (no hba line, no database) is final
          const { severity, code } = err as { severity?: string; code?: string };
          return severity && code !== '57P03' ? { error: (err as Error).message } : undefined;
        } finally {
          await client.end().catch(() => undefined);
        }
      },
      120_000,
    );
    assert.deepEqual(answer, { ok: 'agentplane' }, podman('logs', name));
    assert.match(podman('logs', name), /cut short/);
  },
);
