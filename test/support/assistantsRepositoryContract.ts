// What every AssistantsRepository answers, whichever backend keeps the assistants: the
// embedded store's collections (test/adapters/embedded/collectionAssistants.test.ts) and
// PostgreSQL's tables with the searches in SQL (test/adapters/postgres/pgAssistants.test.ts)
// run this one body.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { AssistantVersion } from '../../generated/agent-server/types.gen.ts';
import type { AssistantRecord, AssistantsRepository } from '../../src/domain/ports/assistantsRepository.ts';

/** An assistant of `owner` (none: a system assistant), created `n` seconds into the day. */
function assistant(id: string, owner: string | undefined, n: number, fields: Partial<AssistantRecord> = {}): AssistantRecord {
  const at = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  return {
    assistant_id: id,
    ...(owner !== undefined ? { owner } : {}),
    graph_id: 'g',
    config: {},
    context: {},
    metadata: {},
    name: id,
    description: null,
    version: 1,
    created_at: at,
    updated_at: at,
    ...fields,
  };
}

function versionOf(a: AssistantRecord): AssistantVersion {
  const { owner: _owner, updated_at, ...rest } = a;
  return { ...rest, created_at: updated_at, description: a.description ?? null } as AssistantVersion;
}

const ids = (assistants: AssistantRecord[]) => assistants.map((a) => a.assistant_id);
const numbers = (versions: AssistantVersion[]) => versions.map((v) => v.version).sort();

export function assistantsRepositoryContract(open: () => Promise<AssistantsRepository>): void {
  it('adds an assistant with its first version only when its id is free', async () => {
    const assistants = await open();
    const first = assistant('a1', undefined, 1, { name: 'first' });
    assert.equal(await assistants.addIfAbsent(first, versionOf(first)), true);
    const second = assistant('a1', undefined, 2, { name: 'second', version: 2 });
    assert.equal(await assistants.addIfAbsent(second, versionOf(second)), false);
    assert.equal((await assistants.get('a1'))?.name, 'first');
    assert.deepEqual(numbers(await assistants.versionsOf('a1')), [1]);
    assert.equal(await assistants.get('missing'), undefined);
  });

  it('saves each new version beside the assistant, reads one version back, and puts one back as the assistant', async () => {
    const assistants = await open();
    const v1 = assistant('a1', 'tenant-a', 1, { metadata: { stage: 'draft' } });
    await assistants.save(v1, versionOf(v1));
    const v2 = { ...v1, version: 2, name: 'renamed', metadata: { stage: 'live' } };
    await assistants.save(v2, versionOf(v2));
    assert.equal((await assistants.get('a1'))?.name, 'renamed');
    assert.deepEqual(numbers(await assistants.versionsOf('a1')), [1, 2]);
    assert.deepEqual(numbers(await assistants.versionsOf('a1', { stage: 'draft' })), [1]);
    assert.equal((await assistants.version('a1', 1))?.name, 'a1');
    assert.equal(await assistants.version('a1', 3), undefined);
    await assistants.put({ ...v2, name: 'a1', version: 1 });
    assert.equal((await assistants.get('a1'))?.version, 1);
    assert.deepEqual(numbers(await assistants.versionsOf('a1')), [1, 2]);
  });

  it('deletes an assistant with every version of it, and no other', async () => {
    const assistants = await open();
    const a1 = assistant('a1', 'tenant-a', 1);
    const a2 = assistant('a2', 'tenant-a', 2);
    await assistants.save(a1, versionOf(a1));
    await assistants.save({ ...a1, version: 2 }, versionOf({ ...a1, version: 2 }));
    await assistants.save(a2, versionOf(a2));
    await assistants.delete('a1');
    assert.equal(await assistants.get('a1'), undefined);
    assert.deepEqual(await assistants.versionsOf('a1'), []);
    assert.deepEqual(numbers(await assistants.versionsOf('a2')), [1]);
  });

  it("searches and counts one owner's assistants and the system ones named, of the configured graphs", async () => {
    const assistants = await open();
    for (const a of [
      assistant('sys', undefined, 1),
      assistant('mine', 'tenant-a', 2, { name: 'Mine Helper', metadata: { team: 'x' } }),
      assistant('old-graph', 'tenant-a', 3, { graph_id: 'gone' }),
      assistant('theirs', 'tenant-b', 4),
    ])
      await assistants.save(a, versionOf(a));
    const filter = { owner: 'tenant-a', systemIds: ['sys'], graphIds: ['g'] };
    const page = { sortBy: 'created_at', order: 'asc', offset: 0, limit: 10 } as const;
    assert.deepEqual(ids(await assistants.search(filter, page)), ['sys', 'mine']);
    assert.deepEqual(ids(await assistants.search(filter, { ...page, order: 'desc', limit: 1 })), ['mine']);
    assert.deepEqual(ids(await assistants.search({ ...filter, name: 'helper' }, page)), ['mine']);
    assert.deepEqual(ids(await assistants.search({ ...filter, metadata: { team: 'x' } }, page)), ['mine']);
    assert.equal(await assistants.count(filter), 2);
    assert.equal(await assistants.count({ ...filter, systemIds: [] }), 1);
  });
}
