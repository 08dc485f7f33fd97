// Listeners end to end: a control plane and two listeners, each its own process (as on other
// machines), with different deployers. Each deploys what is assigned to it and reports back
// through the control plane's API; a listener killed with -9 leaves its deployments UNKNOWN
// and, restarted with nothing but the token it kept, restores them (re-adopting the agent
// server it ran); an API key of the tenant cannot act as a listener; the remote-reconciled
// filter lists the right deployments, a deployment without a listener is still the control
// plane's own deployer's, and listeners and assignments outlive a control-plane kill -9.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ROOT, spawnServer, tempDir, type ChildServer } from '../support/server.ts';
import { logLine } from '../support/logLines.ts';
import { graphSource, makeRepository } from '../control-plane/gitFixture.ts';
import { removeDeploymentUsers } from '../control-plane/deploymentUsers.ts';

const KEY = `listeners-${randomUUID()}`;
const TENANT = randomUUID();
const OTHER_KEY = `listeners-other-${randomUUID()}`;
const OTHER_TENANT = randomUUID();

interface ListenerProcess {
  id: string;
  child: ChildProcess;
  output: () => string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** `agentplane-server listener` as its own process, with `deployer`; resolves once it has registered. */
async function startListener(controlPlane: string, deployer: string, data: string, options: { apiKey?: boolean } = {}): Promise<ListenerProcess> {
  const { AGENTPLANE_API_KEY: _inherited, ...inherited } = process.env;
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bin/agentplane.js'), 'listener', '--control-plane', controlPlane, '--deployer', deployer, '--data', data, '--interval-ms', '150'],
    {
      cwd: ROOT,
      // the key from the environment, never on a command line other users can read
      env: { ...inherited, ...(options.apiKey === false ? {} : { AGENTPLANE_API_KEY: KEY }), LOG_LEVEL: 'info', LOG_FORMAT: 'json', AGENTPLANE_PHASE_MS: '20' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const id = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`listener did not start:\n${out}`));
    }, 60_000);
    const check = () => {
      const started = logLine(out, 'listener started');
      if (started) {
        clearTimeout(timer);
        resolve(started.listener_id);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`listener exited before it started:\n${out}`));
    });
  });
  return {
    id,
    child,
    output: () => out,
    kill: async (signal = 'SIGKILL') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

const portIsClosed = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

const answersOk = async (url: string) => {
  try {
    return (await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2000) })).status === 200;
  } catch {
    return false;
  }
};

describe('listeners', () => {
  const repo = makeRepository();
  const controlData = tempDir('agentplane-listeners-cp-');
  const localData = tempDir('agentplane-listener-local-');
  const otherData = tempDir('agentplane-listener-other-');
  /** The second listener's deployer: a parameter, so the same test can run it with container or kube-local. */
  const otherDeployer = process.env.AGENTPLANE_TEST_SECOND_LISTENER_DEPLOYER ?? 'simulated';
  let controlPlane: ChildServer;
  const listeners: ListenerProcess[] = [];
  let localUrl = '';
  const controlPlaneEnv = {
    AGENTPLANE_API_KEYS: `${KEY}:${TENANT},${OTHER_KEY}:${OTHER_TENANT}`,
    AGENTPLANE_ACCESS_LOG: 'off',
    // short, so that a lost listener is noticed within the test
    AGENTPLANE_LISTENER_TIMEOUT_S: '2',
    AGENTPLANE_PHASE_MS: '20',
  };

  const api = async (pathname: string, init: RequestInit & { json?: unknown; key?: string; as?: Record<string, string> } = {}) => {
    const res = await fetch(controlPlane.url + pathname, {
      ...init,
      headers: { ...(init.as ?? { 'x-api-key': init.key ?? KEY }), ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const output = () =>
    [`control plane:\n${controlPlane.output().slice(-4000)}`, ...listeners.map((l) => `listener ${l.id}:\n${l.output().slice(-4000)}`)].join('\n');
  /** Polls until `check` returns a value (no fixed sleeps: the condition decides). */
  const until = async <T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 120_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined && value !== false) return value;
      if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}\n${output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const revisionIs = (deploymentId: string, revisionId: string, status: string) =>
    until(`revision ${revisionId} ${status}`, async () => {
      const { body } = await api(`/v2/deployments/${deploymentId}/revisions/${revisionId}`);
      if (body.status !== status && /FAILED/.test(body.status)) assert.fail(`revision ${revisionId} ${body.status}: ${body.status_message}\n${output()}`);
      return body.status === status ? body : undefined;
    });
  const names = async (query: string) =>
    ((await api(`/v2/deployments?name_contains=lsn-&limit=100${query}`)).body.resources as { name: string }[]).map((d) => d.name).sort();

  after(async () => {
    for (const listener of listeners) await listener.kill('SIGTERM');
    await controlPlane?.kill('SIGTERM');
    removeDeploymentUsers(`${localData}-deployments`);
    if (localUrl && !(await portIsClosed(localUrl))) assert.fail(`a deployment still answers at ${localUrl} after the test`);
  });

  it('refuses to start on a bad command line (exit 2, naming the option)', () => {
    const run = (args: string[], env: Record<string, string> = {}) => {
      const { AGENTPLANE_API_KEY: _key, ...rest } = process.env;
      const result = spawnSync(
        process.execPath,
        [path.join(ROOT, 'bin/agentplane.js'), 'listener', '--control-plane', 'http://127.0.0.1:9', '--data', tempDir('agentplane-listener-usage-'), ...args],
        { env: { ...rest, ...env }, encoding: 'utf8', timeout: 60_000 },
      );
      return { status: result.status, stderr: result.stderr };
    };
    const noKey = run([]);
    assert.equal(noKey.status, 2);
    assert.match(noKey.stderr, /--api-key or AGENTPLANE_API_KEY/);
    const badDeployer = run(['--deployer', 'docker-swarm'], { AGENTPLANE_API_KEY: KEY });
    assert.equal(badDeployer.status, 2);
    assert.match(badDeployer.stderr, /--deployer/);
    const badInterval = run(['--interval-ms', 'soon'], { AGENTPLANE_API_KEY: KEY });
    assert.equal(badInterval.status, 2);
    assert.match(badInterval.stderr, /--interval-ms .* got "soon"/);
  });

  it(
    'two listeners with different deployers each deploy their own, a killed one leaves them UNKNOWN until it restarts, remote_reconciled filters them',
    { timeout: 400_000 },
    async () => {
      repo.commit(
        {
          'langgraph.json': JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }),
          'graph.mjs': graphSource('remote'),
          'package.json': JSON.stringify({ name: 'listener-fixture', private: true, type: 'module' }),
        },
        'an agent',
      );
      controlPlane = await spawnServer(['--data', controlData], controlPlaneEnv);
      const local = await startListener(controlPlane.url, 'local', localData);
      listeners.push(local);
      const other = await startListener(controlPlane.url, otherDeployer, otherData);
      listeners.push(other);
      assert.notEqual(local.id, other.id);

      // registered as listener resources of the tenant, and heard from
      await until('both listeners CONNECTED', async () => {
        const { body } = await api('/v2/listeners');
        const mine = (body.resources as { id: string; status: string }[]).filter((l) => l.id === local.id || l.id === other.id);
        return mine.length === 2 && mine.every((l) => l.status === 'CONNECTED');
      });
      const localListener = (await api(`/v2/listeners/${local.id}`)).body;
      assert.equal(localListener.compute_type, 'local');
      // another tenant sees neither the listener nor anything assigned to it; no API key, not even the tenant's own, acts as the listener
      assert.equal((await api(`/v2/listeners/${local.id}`, { key: OTHER_KEY })).status, 404);
      assert.equal((await api(`/v2/listeners/${local.id}/heartbeat`, { method: 'POST', key: OTHER_KEY })).status, 401);
      assert.equal((await api(`/v2/listeners/${local.id}/heartbeat`, { method: 'POST' })).status, 401);
      // the listener keeps its own token in its data directory, readable by its user only
      const keptFile = path.join(localData, 'listener.json');
      const kept = JSON.parse(fs.readFileSync(keptFile, 'utf8')) as { listener_id: string; token: string };
      assert.equal(kept.listener_id, local.id);
      assert.match(kept.token, /^aplt_/);
      assert.equal(fs.statSync(keptFile).mode & 0o777, 0o600);
      const asListener = { 'x-listener-token': kept.token };

      // a listener that exists nowhere, or on another source, is refused and nothing is made
      const unknownListener = await api('/v2/deployments', {
        method: 'POST',
        json: { name: 'lsn-bad', source: 'external_docker', source_config: { listener_id: randomUUID() }, source_revision_config: { image_uri: 'x:1' } },
      });
      assert.equal(unknownListener.status, 400);
      assert.match(unknownListener.body.detail, /Listener ID .* not found/);
      const otherTenants = await api('/v2/deployments', {
        method: 'POST',
        key: OTHER_KEY,
        json: { name: 'lsn-bad', source: 'external_docker', source_config: { listener_id: local.id }, source_revision_config: { image_uri: 'x:1' } },
      });
      assert.equal(otherTenants.status, 400, 'a listener of another tenant is not found either');
      assert.deepEqual(await names(''), []);

      // a listener registered but never run: what is assigned to it does not move
      const idle = await api('/v2/listeners', {
        method: 'POST',
        json: { compute_type: 'k8s', compute_id: `idle-${randomUUID()}`, compute_config: { k8s_namespaces: ['agents'] } },
      });
      assert.equal(idle.status, 201, JSON.stringify(idle.body));
      assert.equal(idle.body.status, 'AWAITING_CONNECTION');

      const create = async (name: string, body: Record<string, unknown>) => {
        const res = await api('/v2/deployments', { method: 'POST', json: { name, secrets: [{ name: 'GREETING', value: 'from-the-control-plane' }], ...body } });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        return res.body as { id: string; latest_revision_id: string };
      };
      const onLocal = await create('lsn-local', {
        source: 'github',
        source_config: { repo_url: repo.dir, listener_id: local.id },
        source_revision_config: { repo_ref: 'main', graph_config_path: 'langgraph.json' },
      });
      const onOther = await create('lsn-other', {
        source: 'external_docker',
        source_config: { listener_id: other.id, listener_config: { k8s_namespace: 'agents' }, custom_url: 'http://agent.example.internal' },
        source_revision_config: { image_uri: 'registry.example.internal/agent:1.0' },
      });
      const onIdle = await create('lsn-idle', {
        source: 'external_docker',
        source_config: { listener_id: idle.body.id },
        source_revision_config: { image_uri: 'registry.example.internal/agent:1.0' },
      });
      const own = await create('lsn-own', {
        source: 'external_docker',
        source_config: {},
        source_revision_config: { image_uri: 'registry.example.internal/agent:1.0' },
      });
      assert.equal((await api(`/v2/listeners/${local.id}`, { method: 'DELETE' })).status, 400, 'a listener with deployments is not deleted');
      // compute ids are unique in a tenant; the listener resource can be patched
      assert.equal(
        (await api('/v2/listeners', { method: 'POST', json: { compute_type: 'k8s', compute_id: idle.body.compute_id, compute_config: {} } })).status,
        409,
      );
      const patchedListener = await api(`/v2/listeners/${idle.body.id}`, { method: 'PATCH', json: { version: '9.9.9' } });
      assert.deepEqual(
        [patchedListener.status, patchedListener.body.version, patchedListener.body.compute_config],
        [200, '9.9.9', { k8s_namespaces: ['agents'] }],
      );
      // a listener reports only on what is assigned to it
      const foreign = await api(`/v2/listeners/${local.id}/revisions/${own.latest_revision_id}/status`, {
        method: 'POST',
        as: asListener,
        json: { status: 'DEPLOYED' },
      });
      assert.deepEqual([foreign.status, foreign.body.detail], [404, `Revision ID ${own.latest_revision_id} not found.`]);
      assert.equal(
        (await api(`/v2/listeners/${local.id}/deployments/${onLocal.id}/removed`, { method: 'POST', as: asListener })).status,
        400,
        'only a deleted deployment can be reported removed',
      );

      // each listener deploys what is assigned to it, and the control plane shows it
      const localRevision = await revisionIs(onLocal.id, onLocal.latest_revision_id, 'DEPLOYED');
      assert.match(localRevision.source_revision_config.repo_commit_sha, /^[0-9a-f]{40}$/);
      await revisionIs(onOther.id, onOther.latest_revision_id, 'DEPLOYED');
      const localDeployment = (await api(`/v2/deployments/${onLocal.id}`)).body;
      assert.equal(localDeployment.status, 'READY');
      assert.equal(localDeployment.active_revision_id, onLocal.latest_revision_id);
      localUrl = localDeployment.source_config.custom_url;
      assert.match(localUrl, /^http:\/\/127\.0\.0\.1:\d+$/, 'the local listener reports the URL its agent server answers at');
      assert.notEqual(localUrl, controlPlane.url);
      assert.ok(await answersOk(localUrl), 'the deployed agent server answers /ok');
      // the secret travelled to the listener and into the agent server
      const thread = (await (await fetch(`${localUrl}/threads`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as {
        thread_id: string;
      };
      const state = (await (
        await fetch(`${localUrl}/threads/${thread.thread_id}/runs/wait`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ assistant_id: 'echo', input: { messages: [{ role: 'user', content: 'hi' }] } }),
        })
      ).json()) as { messages: { content: string }[] };
      assert.equal(state.messages.at(-1)!.content, 'remote: hi / from-the-control-plane');
      assert.equal(
        (await api(`/v2/deployments/${onOther.id}`)).body.source_config.custom_url,
        'http://agent.example.internal',
        "an external_docker URL stays the client's",
      );

      // the deployments without a listener are the control plane's own deployer's; one whose listener never came is left alone
      await revisionIs(own.id, own.latest_revision_id, 'DEPLOYED');
      const idleRevision = (await api(`/v2/deployments/${onIdle.id}/revisions/${onIdle.latest_revision_id}`)).body;
      assert.equal(idleRevision.status, 'CREATING', 'the control plane never deploys a remote-reconciled deployment itself');

      // logs written on the listener's machine are read through the control plane
      const buildLog = await until('the build log on the control plane', async () => {
        const { body } = await api(`/v2/deployments/${onLocal.id}/revisions/${onLocal.latest_revision_id}/logs?type=build&limit=1000`);
        return body.logs.some((l: { message: string }) => /Checked out [0-9a-f]{40}/.test(l.message)) ? body : undefined;
      });
      assert.ok(!JSON.stringify(buildLog).includes('from-the-control-plane'), 'secret values never reach the logs');
      await until('the server log on the control plane', async () => {
        const { body } = await api(`/v2/deployments/${onLocal.id}/revisions/${onLocal.latest_revision_id}/logs?type=deploy&limit=1000`);
        return body.logs.some((l: { message: string }) => /agentplane listening/.test(l.message));
      });

      // the remote-reconciled filter, both ways
      assert.deepEqual(await names('&remote_reconciled=true'), ['lsn-idle', 'lsn-local', 'lsn-other']);
      assert.deepEqual(await names('&remote_reconciled=false'), ['lsn-own']);
      assert.deepEqual(
        ((await api(`/v2/deployments/${onLocal.id}/revisions?remote_reconciled=true`)).body.resources as { id: string }[]).map((r) => r.id),
        [onLocal.latest_revision_id],
      );
      assert.deepEqual((await api(`/v2/deployments/${onLocal.id}/revisions?remote_reconciled=false`)).body.resources, []);

      // kill -9 the local listener: once its heartbeats are missed, its deployment is UNKNOWN; the other listener's is not
      await local.kill('SIGKILL');
      await revisionIs(onLocal.id, onLocal.latest_revision_id, 'UNKNOWN');
      assert.equal((await api(`/v2/deployments/${onLocal.id}`)).body.status, 'UNKNOWN');
      assert.equal((await api(`/v2/listeners/${local.id}`)).body.status, 'DISCONNECTED');
      assert.equal((await api(`/v2/deployments/${onOther.id}/revisions/${onOther.latest_revision_id}`)).body.status, 'DEPLOYED');
      assert.equal((await api(`/v2/deployments/${onOther.id}`)).body.status, 'READY');
      assert.deepEqual(await names('&status=UNKNOWN'), ['lsn-local']);

      // restarted on the same data directory, without an API key (its kept token is all it needs): the same listener, its agent server re-adopted, the statuses restored
      const again = await startListener(controlPlane.url, 'local', localData, { apiKey: false });
      listeners.push(again);
      assert.equal(again.id, local.id);
      await revisionIs(onLocal.id, onLocal.latest_revision_id, 'DEPLOYED');
      await until('the deployment READY again', async () => (await api(`/v2/deployments/${onLocal.id}`)).body.status === 'READY');
      assert.equal((await api(`/v2/deployments/${onLocal.id}`)).body.source_config.custom_url, localUrl);
      assert.ok(await answersOk(localUrl));
      // the statuses come from the control plane's records; the listener's restore logs once it has looked at the process
      await until('the listener restored its deployment', async () => /deployment (re-adopted|restarted)/.test(again.output()));
      assert.match(again.output(), /deployment re-adopted/, 'the agent server that kept running was adopted, not started again');
      assert.equal((await api(`/v2/listeners/${local.id}`)).body.status, 'CONNECTED');

      // the control plane killed and restarted (same address, same data): listeners and assignments are kept, nothing became UNKNOWN
      const port = new URL(controlPlane.url).port;
      await controlPlane.kill('SIGKILL');
      const restartedAt = Date.now();
      controlPlane = await spawnServer(['--data', controlData, '--port', port], controlPlaneEnv);
      await until('both listeners heard from again', async () => {
        const { body } = await api('/v2/listeners?limit=100');
        const mine = (body.resources as { id: string; status: string; last_heard_at: string }[]).filter((l) => l.id === local.id || l.id === other.id);
        return mine.length === 2 && mine.every((l) => l.status === 'CONNECTED' && Date.parse(l.last_heard_at) > restartedAt);
      });
      for (const d of [onLocal, onOther]) {
        assert.equal((await api(`/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`)).body.status, 'DEPLOYED');
        assert.equal((await api(`/v2/deployments/${d.id}`)).body.status, 'READY');
      }
      assert.deepEqual(await names('&remote_reconciled=true'), ['lsn-idle', 'lsn-local', 'lsn-other']);
      assert.doesNotMatch(controlPlane.output(), /listener not heard from/, 'the time the control plane was down is not held against its listeners');

      // a deployment whose listener never runs is removed only with force; then its listener can go
      assert.equal((await api(`/v2/deployments/${onIdle.id}`, { method: 'DELETE' })).status, 204);
      assert.equal((await api(`/v2/deployments/${onIdle.id}`)).body.status, 'AWAITING_DELETE');
      assert.equal((await api(`/v2/deployments/${onIdle.id}?force=true`, { method: 'DELETE' })).status, 204);
      assert.equal((await api(`/v2/listeners/${idle.body.id}`, { method: 'DELETE' })).status, 204);
      assert.equal((await api(`/v2/listeners/${idle.body.id}`)).status, 404);

      // deleted: the listener takes it down, then it is gone from the control plane
      assert.equal((await api(`/v2/deployments/${onLocal.id}`, { method: 'DELETE' })).status, 204);
      await until('the deployment gone', async () => (await api(`/v2/deployments/${onLocal.id}`)).status === 404);
      await until('its agent server stopped', () => portIsClosed(localUrl));
    },
  );
});
