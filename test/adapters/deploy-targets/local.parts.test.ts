// The local deployer's smaller promises: log paging and filters, the install command a
// lockfile implies, and a docker revision on a machine without a container runtime.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createLogger } from '../../../src/runtime/logging/logger.ts';
import fs from 'node:fs';
import path from 'node:path';
import { pageOfLog, parseLogLine } from '../../../src/domain/control-plane/deployer/revisionLogs.ts';
import { capLogFile } from '../../../src/adapters/log-files/revisionLogFiles.ts';
import { detectInstallCommand } from '../../../src/adapters/images/installCommand.ts';
import { tempDir, type InProcessApp } from '../../support/server.ts';
import { areaApp } from '../../support/area.ts';
import { create, dockerBody, json, waitForRealRevision, waitForRevision } from '../../control-plane/support.ts';
import { graphSource, makeRepository } from '../../control-plane/gitFixture.ts';

const lines = ['one', 'two ERROR here', 'three', 'four', 'five'].map((message, i) => ({
  timestamp: null,
  level: i === 1 ? ('ERROR' as const) : ('INFO' as const),
  message,
}));

describe('revision logs', () => {
  it('pages forwards with a cursor, and says the end only once the log is complete', () => {
    const first = pageOfLog(lines, { limit: 2 }, true);
    assert.deepEqual(
      first.logs.map((l) => l.message),
      ['one', 'two ERROR here'],
    );
    const rest = pageOfLog(lines, { limit: 10, offset: first.next_offset! }, true);
    assert.deepEqual(
      rest.logs.map((l) => l.message),
      ['three', 'four', 'five'],
    );
    assert.equal(rest.next_offset, null);
    // a log still being written keeps a cursor to poll with
    assert.equal(pageOfLog(lines, { limit: 10 }, false).next_offset, '5');
  });

  it('pages backwards from the newest line', () => {
    const last = pageOfLog(lines, { limit: 2, order: 'desc' }, false);
    assert.deepEqual(
      last.logs.map((l) => l.message),
      ['five', 'four'],
    );
    const before = pageOfLog(lines, { limit: 5, order: 'desc', offset: last.next_offset! }, false);
    assert.deepEqual(
      before.logs.map((l) => l.message),
      ['three', 'two ERROR here', 'one'],
    );
    assert.equal(before.next_offset, null);
  });

  it('filters by text and by level', () => {
    assert.deepEqual(
      pageOfLog(lines, { query: 'error' }, true).logs.map((l) => l.message),
      ['two ERROR here'],
    );
    assert.deepEqual(
      pageOfLog(lines, { level: 'ERROR' }, true).logs.map((l) => l.message),
      ['two ERROR here'],
    );
  });

  it('reads the agent server own JSON lines with their time and level', () => {
    const line = parseLogLine(JSON.stringify({ level: 50, time: 1750000000000, pid: 1, msg: 'run failed', run_id: 'r1' }));
    assert.equal(line.level, 'ERROR');
    assert.equal(line.timestamp, new Date(1750000000000).toISOString());
    assert.equal(line.message, 'run failed {"run_id":"r1"}');
    assert.deepEqual(parseLogLine('plain {text'), { timestamp: null, level: null, message: 'plain {text' });
  });

  it('caps a log file, keeping its newer half beside it', () => {
    const file = path.join(tempDir(), 'server.log');
    fs.writeFileSync(file, 'x'.repeat(1000) + 'TAIL');
    capLogFile(file, 100);
    assert.equal(fs.statSync(file).size, 0);
    assert.ok(fs.readFileSync(`${file}.1`, 'utf8').endsWith('TAIL'));
    assert.equal(fs.statSync(`${file}.1`).size, 50);
  });
});

describe('install command', () => {
  it('follows the lockfile, like the upstream builders', () => {
    const dir = tempDir();
    assert.equal(detectInstallCommand(dir), null);
    fs.writeFileSync(path.join(dir, 'package.json'), '{}');
    assert.equal(detectInstallCommand(dir), 'npm install');
    fs.writeFileSync(path.join(dir, 'yarn.lock'), '');
    assert.equal(detectInstallCommand(dir), 'yarn install --frozen-lockfile');
    fs.writeFileSync(path.join(dir, 'pnpm-lock.yaml'), '');
    assert.equal(detectInstallCommand(dir), 'pnpm install --frozen-lockfile');
    fs.writeFileSync(path.join(dir, 'package-lock.json'), '{}');
    assert.equal(detectInstallCommand(dir), 'npm ci');
  });
});

describe('local deployer without a container runtime', () => {
  let server: InProcessApp;
  after(() => server?.close());

  it('ends a docker revision in DEPLOY_FAILED saying so, and the simulated logs are not used', async () => {
    server = await areaApp('control-plane', { env: { AGENTPLANE_DEPLOYER: 'local', PATH: '/nonexistent' } });
    const deployment = await create(server.api, dockerBody('no-runtime'));
    const revision = await waitForRevision(server.api, deployment.id, deployment.latest_revision_id);
    assert.equal(revision.status, 'DEPLOY_FAILED');
    assert.match(revision.status_message, /docker or podman, and neither is installed/);
    const active = await json(await server.api(`/v2/deployments/${deployment.id}`), 200);
    assert.equal(active.active_revision_id, null);
    assert.equal(active.source_config.custom_url, 'https://agents.acme.internal/no-runtime', 'the client-chosen URL stays');
    const logs = await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${revision.id}/logs?type=build`), 200);
    assert.deepEqual(logs, { logs: [], next_offset: null });
  });

  it('answers 422 for a log request without its type, and 404 for an unknown revision', async () => {
    const deployment = await create(server.api, dockerBody('logs-errors'));
    await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${deployment.latest_revision_id}/logs`), 422);
    await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${deployment.id}/logs?type=build`), 404);
  });
});

describe('local deployer without isolation', () => {
  let server: InProcessApp;
  after(() => server?.close());

  it(
    "says in every build log that builds run as the control plane's own user, and keeps its secrets out of the server's log",
    { timeout: 120_000 },
    async () => {
      const logged: string[] = [];
      server = await areaApp('control-plane', {
        env: { AGENTPLANE_DEPLOYER: 'local', AGENTPLANE_DEPLOYER_ISOLATION: 'none' },
        log: createLogger('debug', {}, (line) => logged.push(line)),
      });
      const secret = `no-isolation-secret-${randomUUID()}`;
      const repo = makeRepository();
      repo.commit({ 'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }), 'graph.mjs': graphSource('none') }, 'agent');
      const deployment = await create(server.api, {
        name: 'no-isolation',
        source: 'github',
        source_config: { repo_url: repo.dir, build_command: 'echo "token: $TOKEN" >&2; exit 3' },
        source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
        secrets: [{ name: 'TOKEN', value: secret }],
      });
      const revision = await waitForRealRevision(server.api, deployment.id, deployment.latest_revision_id);
      assert.equal(revision.status, 'BUILD_FAILED', revision.status_message);
      const build = await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${revision.id}/logs?type=build`), 200);
      assert.match(build.logs[0].message, /^Isolation: none — builds and agent servers run as the control plane's own user and can read its data directory/);
      assert.ok(!JSON.stringify(build).includes(secret) && !revision.status_message.includes(secret), 'the secret in the build log or status');
      assert.ok(logged.length > 0 && !logged.join('').includes(secret), "the secret in the server's log");
    },
  );
});

describe('simulated deployer logs', () => {
  let server: InProcessApp;
  after(() => server?.close());

  it('tell the phases a revision went through', async () => {
    server = await areaApp('control-plane');
    // credentials in repo_url are masked here too
    const deployment = await create(server.api, {
      name: 'simulated-logs',
      source: 'github',
      source_config: { repo_url: 'https://x:tok3n-simulated@github.com/acme/agent' },
      source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
    });
    const revision = await waitForRevision(server.api, deployment.id, deployment.latest_revision_id);
    const build = await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${revision.id}/logs?type=build`), 200);
    assert.match(
      build.logs.map((l: { message: string }) => l.message).join('\n'),
      /Fetching https:\/\/x:\*{8}@github.com\/acme\/agent at main[\s\S]*Build finished/,
    );
    assert.ok(!JSON.stringify(build).includes('tok3n-simulated'));
    assert.equal(build.next_offset, null);
    const deploy = await json(await server.api(`/v2/deployments/${deployment.id}/revisions/${revision.id}/logs?type=deploy`), 200);
    assert.match(deploy.logs.at(-1).message, /answers \/ok/);
  });
});
