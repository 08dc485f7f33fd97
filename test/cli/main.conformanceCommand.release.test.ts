// `agentplane conformance --url`: the suite against a server the command did not start — a
// server with a planted bug fails (exit 1) with the shrunk curl reproduction and a JUnit
// <failure>; a bad option exits 2; a run against a real server leaves it holding exactly what it
// held before (assistants, threads, crons, deployments), also when interrupted by Ctrl-C. That agentplane in real mode passes (exit 0, a JUnit report
// without failures) is checked on the installed package (test/release/package-install.release.test.ts).
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile, spawn } from 'node:child_process';
import { apiDocuments, rpcDocument } from '../../src/runtime/api.ts';
import { createMockHandlers, createMockMethods } from '../../src/runtime/mock/producer.ts';
import type { AppFactory, Application } from '../../src/compose/server.ts';
import { ROOT, startTestServer, tempDir, type TestServer } from '../support/server.ts';
import { holdings, records } from '../support/holdings.ts';
import { githubBody, waitForRevision } from '../control-plane/support.ts';

/** Runs the command without blocking this process, which serves the target. */
function conformance(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(ROOT, 'bin/agentplane.js'), 'conformance', ...args],
      { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'silent' } },
      (err, stdout, stderr) => {
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

describe('agentplane conformance --url', () => {
  const servers: TestServer[] = [];
  const dir = tempDir('agentplane-conformance-cli-');
  after(async () => {
    for (const s of servers) await s.close();
  });

  // Its pass against agentplane in real mode, as a fresh start leaves it (no settings), with
  // a JUnit report, is checked once, on the installed package (test/release/
  // package-install.release.test.ts): the same command and compiled suite against the same
  // server, built into the tarball a user installs. The suite itself runs against both modes in
  // npm test (test/conformance); here, what only the command does: its failure and its usage.
  it('fails with a curl reproduction against a server with a planted bug', async () => {
    // mock answers, except getDeployment, whose reply lacks its required name (a value of the
    // wrong type would not do: the reply is written from its schema, which converts it)
    const buggy: AppFactory = async () => {
      const handlers = (await createMockHandlers(apiDocuments)) as unknown as Application['handlers'];
      const inner = handlers.getDeployment;
      const getDeployment: typeof inner = async (req, ctx) => {
        const reply = await inner(req, ctx);
        const { name: _dropped, ...rest } = ('body' in reply ? reply.body : {}) as Record<string, unknown>;
        return { ...reply, body: rest } as never;
      };
      return { handlers: { ...handlers, getDeployment }, methods: createMockMethods(rpcDocument.document) as Application['methods'], modules: [] };
    };
    const server = await startTestServer({ app: buggy, exampleGraphs: 'all', env: { AGENTPLANE_VALIDATE_RESPONSES: '0' } });
    servers.push(server);
    const junit = path.join(dir, 'buggy.xml');
    const { code, output } = await conformance([
      '--url',
      server.url,
      '--api-key',
      server.key,
      '--mode',
      'mock',
      '--documents',
      'control-plane',
      '--runs',
      '5',
      '--junit',
      junit,
    ]);
    assert.equal(code, 1, output.slice(-4000));
    assert.match(output, /body does not match the 200 schema/);
    assert.match(output, /reproduce: curl -sS -i -X GET 'http:\/\/127\.0\.0\.1:\d+\/v2\/deployments\/[^']+'/);
    assert.match(output, /replay with FUZZ_SEED=/);
    assert.match(fs.readFileSync(junit, 'utf8'), /<failure/);
  });

  it('leaves no trace: afterwards the server holds exactly the assistants, threads, crons and deployments it held before, its users’ untouched', async () => {
    // the operator's keys in AGENTPLANE_API_KEYS, nothing else of agent auth set (its token key made in the data directory)
    const server = await startTestServer({ exampleGraphs: 'all' });
    servers.push(server);
    const api = (p: string, i?: RequestInit & { json?: unknown }) => server.api(p, i);
    const held = () => holdings(api);
    // in use: a user's assistant, a thread with a run on it, a cron (enabled, due once a year) and a deployment are there before
    const ok = async (res: Promise<Response>) => {
      const answered = await res;
      assert.ok(answered.ok, `${answered.status} ${await answered.clone().text()}`);
      return (await answered.json()) as Record<string, any>;
    };
    const assistant = await ok(api('/assistants', { method: 'POST', json: { graph_id: 'echo', name: 'a user’s assistant', metadata: { owner: 'a user' } } }));
    const thread = await ok(api('/threads', { method: 'POST', json: { metadata: { owner: 'a user' } } }));
    await ok(
      api(`/threads/${thread.thread_id}/runs/wait`, {
        method: 'POST',
        json: { assistant_id: assistant.assistant_id, input: { messages: [{ role: 'user', content: 'mine' }] } },
      }),
    );
    await ok(
      api(`/threads/${thread.thread_id}/runs/crons`, { method: 'POST', json: { assistant_id: 'echo', schedule: '0 0 1 1 *', input: { messages: [] } } }),
    );
    const deployment = await ok(api('/v2/deployments', { method: 'POST', json: githubBody('a-users-agent') }));
    await waitForRevision(api, deployment.id, deployment.latest_revision_id);
    const was = await held();
    const theirs = await records(api, was);
    const { code, output } = await conformance(['--url', server.url, '--api-key', server.key, '--mode', 'real', '--runs', '1', '--seed', '7']);
    assert.deepEqual(await records(api, was), theirs, 'the users’ assistant, thread (and its state), cron and deployment are as they were');
    const now = await held();
    const left = await Promise.all(now.threads.filter((id) => !was.threads.includes(id)).map(async (id) => (await server.api(`/threads/${id}`)).text()));
    assert.deepEqual(now, was, `exit ${code}: ${output.slice(-2000)}\nthreads left: ${left.join('\n')}`);
    assert.doesNotMatch(output, /could not delete what the suite made/);
    assert.equal(code, 0, output.slice(-3000));
  });

  it('interrupted by Ctrl-C, it ends only once what it made so far is deleted', { timeout: 300_000 }, async () => {
    const server = await startTestServer({ exampleGraphs: 'all' });
    servers.push(server);
    const held = () => holdings((p, i) => server.api(p, i));
    await server.api('/threads', { method: 'POST', json: { metadata: { owner: 'a user' } } });
    const was = await held();
    // a process group of its own, as a terminal's foreground job: Ctrl-C is SIGINT to the whole group
    const cli = spawn(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'conformance', '--url', server.url, '--api-key', server.key, '--runs', '2'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    let output = '';
    cli.stdout!.on('data', (d) => (output += d));
    cli.stderr!.on('data', (d) => (output += d));
    let ended: number | null | undefined;
    const exited = new Promise<number | null>((resolve) => cli.once('exit', (code) => resolve((ended = code))));
    // under way: the suite has made threads and assistants of its own (a wall-clock bound: a poll of a busy server is slow)
    const madeBy = Date.now() + 60_000;
    for (;;) {
      const now = await held();
      if (now.threads.length > was.threads.length + 2 && now.assistants.length > was.assistants.length) break;
      assert.equal(ended, undefined, `the command ended (exit ${ended}) before a poll saw what the suite made:\n${output.slice(-2000)}`);
      assert.ok(Date.now() < madeBy, `the suite made nothing in 60 s:\n${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    process.kill(-cli.pid!, 'SIGINT');
    // the suite waits for its requests under way (15 s at most) and deletes: far less than this, or a hang to report
    const code = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(resolve, 150_000, 'hung').unref())]);
    if (code === 'hung') {
      process.kill(-cli.pid!, 'SIGKILL');
      assert.fail(`the command did not end within 150 s of Ctrl-C:\n${output.slice(-3000)}`);
    }
    // the moment the command has ended, not later: what the suite made is gone already
    assert.deepEqual(await held(), was, `exit ${code}: ${output.slice(-2000)}`);
    assert.equal(code, 130, output.slice(-2000));
    assert.match(output, /conformance: interrupted/);
  });

  it('refuses a bad option with exit code 2', async () => {
    const { code, output } = await conformance(['--url', 'http://127.0.0.1:9', '--documents', 'nope']);
    assert.equal(code, 2);
    assert.match(output, /unknown document/);
  });
});
