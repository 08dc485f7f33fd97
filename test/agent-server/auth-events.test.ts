// Custom auth asks the project's handler about the upstream event of each run operation:
// the stateless ones and run deletion included (upstream JS server's events).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventOf } from '../../src/handlers/agent-server/authGuard.ts';

test('run operations map to the upstream auth events', () => {
  const cases: [string, string, string][] = [
    ['POST', '/threads/{thread_id}/runs', 'threads:create_run'],
    ['POST', '/runs', 'threads:create_run'],
    ['POST', '/runs/stream', 'threads:create_run'],
    ['POST', '/runs/wait', 'threads:create_run'],
    ['POST', '/runs/batch', 'threads:create_run'],
    ['POST', '/runs/cancel', 'threads:update'],
    ['POST', '/threads/{thread_id}/runs/{run_id}/cancel', 'threads:update'],
    ['GET', '/runs/{run_id}/stream', 'threads:read'],
    ['GET', '/threads/{thread_id}/runs/{run_id}/stream', 'threads:read'],
    ['DELETE', '/threads/{thread_id}/runs/{run_id}', 'threads:delete'],
    ['DELETE', '/threads/{thread_id}', 'threads:delete'],
  ];
  assert.deepEqual(
    cases.map(([method, path]) => [method, path, eventOf({ method, path } as never)]),
    cases,
  );
});
