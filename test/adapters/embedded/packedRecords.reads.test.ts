// What the API reads of runs and threads kept as packed rows (issue 91): searches by status,
// metadata and ids, sorted by each field, paged; a thread's runs by status, paged; each read
// the same while the server runs and after a restart on the same directory, where the rows
// are loaded from the snapshot's saved indexes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { Client } from '@langchain/langgraph-sdk';
import { areaApp } from '../../support/area.ts';
import { testProject } from '../../fixtures/agent-server/project.ts';
import { tempDir } from '../../support/tempDirs.ts';

const say = (content: string) => ({ messages: [{ role: 'user', content }] });

test('searches of threads and lists of runs read the same from packed rows, written and after a restart (issue 91)', async () => {
  const dataDir = tempDir('agentplane-packed-reads-');
  try {
    let server = await areaApp('agent-server', { project: testProject, dataDir });
    const client = () => new Client({ apiUrl: server.url, callerOptions: { fetch: server.fetch, maxRetries: 0 } });
    const threadIds: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const thread = await client().threads.create({ metadata: { team: i % 2 ? 'odd' : 'even', n: i } });
      threadIds.push(thread.thread_id);
      for (let r = 0; r <= i % 3; r += 1) await client().runs.wait(thread.thread_id, 'echo', { input: say(`run ${r}`) });
    }
    await client().threads.update(threadIds[1]!, { metadata: { team: 'moved' } });
    const reads = async () => {
      const c = client();
      const out: Record<string, unknown> = {};
      for (const sortBy of ['thread_id', 'status', 'created_at', 'updated_at'] as const)
        for (const sortOrder of ['asc', 'desc'] as const)
          out[`${sortBy} ${sortOrder}`] = (await c.threads.search({ sortBy, sortOrder, limit: 4, offset: 1 })).map((t) => t.thread_id);
      out.odd = (await c.threads.search({ metadata: { team: 'odd' } })).map((t) => t.thread_id);
      out.moved = (await c.threads.search({ metadata: { team: 'moved' } })).map((t) => [t.thread_id, t.metadata, t.created_at, t.updated_at]);
      out.idle = (await c.threads.search({ status: 'idle', ids: threadIds.slice(2, 5) })).map((t) => t.thread_id);
      out.count = await c.threads.count({ metadata: { team: 'even' } });
      out.runs = [];
      for (const threadId of threadIds) {
        const runs = await c.runs.list(threadId);
        (out.runs as unknown[]).push(runs.map((r) => [r.run_id, r.status, r.created_at, r.updated_at]));
        (out.runs as unknown[]).push((await c.runs.list(threadId, { status: 'success', limit: 1, offset: 1 })).map((r) => r.run_id));
        if (runs[0]) assert.deepEqual(await c.runs.get(threadId, runs[0].run_id), runs[0]);
      }
      return out;
    };
    const written = await reads();
    assert.equal((written.odd as string[]).length, 2);
    assert.equal(written.count, 3);
    assert.deepEqual((written['created_at asc'] as string[]).length, 4);
    assert.deepEqual((written.runs as unknown[][])[10]!.length, 3, "the sixth thread's three runs");
    await server.close();
    server = await areaApp('agent-server', { project: testProject, dataDir });
    try {
      assert.deepEqual(await reads(), written);
    } finally {
      await server.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
