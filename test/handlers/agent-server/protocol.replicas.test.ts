// The thread-centric streaming protocol on two replicas sharing PostgreSQL: a run started
// through one replica is followed live from the other, and a replay from `since` on either
// replica gives the same events with the same numbers (one of the two readers follows a run
// executing on the other replica, through the shared run event log and its NOTIFYs).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { ROOT, startTestServer, type TestServer } from '../../support/server.ts';
import { migratedDatabaseUrl } from '../../support/postgres.ts';
import { api, events, rootEnd } from '../../support/protocolEvents.ts';

const fixture = path.join(ROOT, 'test/fixtures/graphs/protocol.ts');
const graphs = { talk: `${fixture}:talk` };
const CHANNELS = ['lifecycle', 'values', 'updates', 'messages', 'custom', 'input'];

describe('protocol v2 on two replicas of one PostgreSQL database', () => {
  const replicas: TestServer[] = [];
  before(async () => {
    const DATABASE_URL = await migratedDatabaseUrl();
    // graphs on the request loop: a run worker's start (seconds on a busy machine) is not what this tests
    const env = { DATABASE_URL, AGENTPLANE_RUN_WORKERS: '0' };
    replicas.push(await startTestServer({ project: { graphs }, dataDir: null, env }));
    replicas.push(await startTestServer({ project: { graphs }, dataDir: null, env }));
  });
  after(async () => {
    for (const replica of replicas) await replica.close();
  });

  it('a subscriber on one replica sees a run started on the other, numbered alike, and replays it from either', { timeout: 60_000 }, async () => {
    const [one, two] = replicas.map((replica) => api(replica, replica.key));
    for (let round = 0; round < 2; round += 1) {
      const threadId = randomUUID();
      const started = (await (
        await two(`/threads/${threadId}/commands`, {
          id: 1,
          method: 'run.start',
          params: { assistant_id: 'talk', input: { messages: [{ role: 'user', content: 'hi' }] } },
        })
      ).json()) as {
        type: string;
      };
      assert.equal(started.type, 'success');
      const live = await events(await one(`/threads/${threadId}/stream/events`, { channels: CHANNELS }), rootEnd);
      assert.deepEqual(live[0].params.data, { event: 'running', graph_name: 'talk' });
      assert.deepEqual(live.at(-1)!.params.data, { event: 'completed', graph_name: 'talk' });
      assert.ok(live.some((e) => e.method === 'messages') && live.some((e) => e.method === 'custom'));
      for (const reader of [one, two]) {
        const replay = await events(await reader(`/threads/${threadId}/stream/events`, { channels: CHANNELS, since: live[3].seq }), rootEnd);
        assert.deepEqual(replay, live.slice(4));
      }
      // the thread's next run is numbered after this one on both replicas
      const next = (await (
        await one(`/threads/${threadId}/commands`, { id: 2, method: 'run.start', params: { assistant_id: 'talk', input: { messages: [] } } })
      ).json()) as {
        meta: { applied_through_seq: number };
      };
      const last = await events(
        await two(`/threads/${threadId}/stream/events`, { channels: ['lifecycle'], namespaces: [[]], since: next.meta.applied_through_seq }),
        rootEnd,
      );
      assert.ok(next.meta.applied_through_seq >= live.at(-1)!.seq);
      assert.equal(last[0].seq, next.meta.applied_through_seq + 1);
    }
  });
});
