// (In the container suite's folder, so named for it; it runs in process, without podman.)
// Which of the container suite's kept images go once its shared layers are built: the older
// tags of each shared repository, not the current ones, not those made in the last half hour
// (another checkout's run may use them), and never an image of another repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RECENT_MS, staleNames } from './staleImages.ts';

const now = Date.UTC(2026, 10, 30, 6);
const ago = (ms: number) => Math.floor((now - ms) / 1000);

test('one tag of each shared image is kept, the current; older tags of the same repositories go', () => {
  const images = [
    { names: ['localhost/agentplane-server:aaaaaaaaaaaa'], created: ago(2 * 3600_000) },
    { names: ['localhost/agentplane-server:bbbbbbbbbbbb'], created: ago(3 * 3600_000) },
    { names: ['localhost/agentplane-test-postgres:cccccccccccc'], created: ago(24 * 3600_000) },
    { names: ['localhost/agentplane-test-postgres:dddddddddddd'], created: ago(48 * 3600_000) },
    { names: ['localhost/agentplane-base:node20.20.2-eeeeeeeeeeee'], created: ago(48 * 3600_000) },
  ];
  const current = [
    'localhost/agentplane-server:aaaaaaaaaaaa',
    'localhost/agentplane-test-postgres:cccccccccccc',
    'localhost/agentplane-base:node20.20.2-eeeeeeeeeeee',
  ];
  assert.deepEqual(staleNames(images, current, now), ['localhost/agentplane-server:bbbbbbbbbbbb', 'localhost/agentplane-test-postgres:dddddddddddd']);
});

test('an older tag made in the last half hour stays (another run may use it), and images of other repositories are never named', () => {
  const images = [
    { names: ['localhost/agentplane-server:ffffffffffff'], created: ago(RECENT_MS - 60_000) },
    { names: ['localhost/agentplane-deployment-1234:rev'], created: ago(48 * 3600_000) },
    { names: ['docker.io/library/postgres:16'], created: ago(48 * 3600_000) },
    { names: ['localhost/agentplane-server-other:1'], created: ago(48 * 3600_000) },
    { names: [], created: ago(48 * 3600_000) },
  ];
  assert.deepEqual(staleNames(images, ['localhost/agentplane-server:aaaaaaaaaaaa'], now), []);
});

test('an image tagged both current and old is kept under both names', () => {
  const images = [{ names: ['localhost/agentplane-test-node:111111111111', 'localhost/agentplane-test-node:222222222222'], created: ago(48 * 3600_000) }];
  assert.deepEqual(staleNames(images, ['localhost/agentplane-test-node:111111111111'], now), []);
});
