// Bring your own LangGraph.js project: an unmodified project (its own package.json with
// another @langchain/langgraph minor, langgraph.json with the object graph form, a factory
// graph, .env, http.app, auth.path) served by `agentplane dev` started in its folder with no
// flags; editing the graph changes the next run.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Client } from '@langchain/langgraph-sdk';
import { ROOT, tempDir } from '../../support/server.ts';
import { startDev, type DevProcess } from '../../support/devProcess.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/byo-project');
const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const lastText = (values: unknown) => (values as { messages: { content: string }[] }).messages.at(-1)!.content;

describe('agentplane dev on an unmodified LangGraph.js project', () => {
  let dir: string;
  let dev: DevProcess | undefined;
  let output = () => '';
  let url: string;
  const as = (user: string) => new Client({ apiUrl: url, defaultHeaders: { Authorization: `Bearer user-${user}` }, callerOptions: { maxRetries: 0 } });

  before(async () => {
    dir = tempDir('agentplane-byo-');
    fs.cpSync(FIXTURE, dir, { recursive: true });
    // the project's own dependencies, as its user installs them
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: 'pipe' });
    dev = await startDev(dir);
    url = dev.url;
    output = dev.output;
  });
  after(() => dev?.stop());

  it('uses the project’s own @langchain/langgraph', () => {
    const version = JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/@langchain/langgraph/package.json'), 'utf8')).version;
    const ours = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@langchain/langgraph/package.json'), 'utf8')).version;
    assert.notEqual(version.split('.').slice(0, 2).join('.'), ours.split('.').slice(0, 2).join('.'));
  });

  it('prints a banner with the API, the docs and each graph with its assistant id', () => {
    assert.match(output(), /API\s+http:\/\/127\.0\.0\.1:\d+/);
    assert.match(output(), /docs\s+http:\/\/127\.0\.0\.1:\d+\/docs/);
    assert.match(output(), /greeter\s+assistant [0-9a-f-]{36}/);
  });

  it('runs the factory graph with the env from .env', async () => {
    const client = as('alice');
    const thread = await client.threads.create();
    const result = await client.runs.wait(thread.thread_id, 'greeter', { input: say('Alice') });
    assert.equal(lastText(result), 'Bonjour, Alice!');
  });

  it('answers the project’s custom route', async () => {
    const res = await fetch(`${url}/hello`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { hello: 'from the project', greeting: 'Bonjour' });
  });

  it('sends the CORS headers its http.cors asks for, on API and custom routes', async () => {
    const pre = await fetch(`${url}/threads/search`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.equal(pre.headers.get('access-control-allow-credentials'), 'true');
    const hello = await fetch(`${url}/hello`, { headers: { Origin: 'http://localhost:3000' } });
    assert.equal(hello.headers.get('access-control-allow-origin'), 'http://localhost:3000');
    assert.match(hello.headers.get('access-control-expose-headers') ?? '', /X-Greeting/);
    const other = await fetch(`${url}/threads/search`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:4000', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
  });

  it('admits, rejects and filters as its auth handler says', async () => {
    // no credentials: the project's authenticate refuses with its own message
    const anonymous = await fetch(`${url}/threads/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(anonymous.status, 401);
    assert.match(((await anonymous.json()) as { detail: string }).detail, /Bearer user-<name>/);
    // health stays open for probes
    assert.equal((await fetch(`${url}/ok`)).status, 200);

    const alice = as('alice');
    const bob = as('bob');
    const thread = await alice.threads.create({ metadata: { topic: 'secret' } });
    assert.equal(thread.metadata?.owner, 'alice', 'threads:create set the owner');
    assert.equal((await alice.threads.get(thread.thread_id)).thread_id, thread.thread_id);
    // another user's thread does not exist for them: read, runs, delete
    await assert.rejects(bob.threads.get(thread.thread_id), /404/);
    await assert.rejects(bob.runs.create(thread.thread_id, 'greeter', { input: say('hi') }), /404/);
    await assert.rejects(bob.threads.delete(thread.thread_id), /404/);
    const bobs = await bob.threads.search({ limit: 100 });
    assert.ok(bobs.every((t) => t.metadata?.owner === 'bob'));
    assert.ok(!bobs.some((t) => t.thread_id === thread.thread_id));
    const alices = await alice.threads.search({ limit: 100 });
    assert.ok(alices.some((t) => t.thread_id === thread.thread_id));
    assert.equal((await alice.threads.get(thread.thread_id)).thread_id, thread.thread_id, 'bob could not delete it');
  });

  it('picks up an edit of the graph for the next run', async () => {
    const client = as('alice');
    const thread = await client.threads.create();
    fs.writeFileSync(path.join(dir, 'src/reply.ts'), 'export const reply = (greeting: string | undefined, text: string) => `${greeting} again, ${text}?`;\n');
    let text = '';
    for (let i = 0; i < 100 && !text.includes('again'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      text = lastText(await client.runs.wait(thread.thread_id, 'greeter', { input: say('Bob') }));
    }
    assert.equal(text, 'Bonjour again, Bob?');
    assert.match(output(), /graphs reloaded/);
  });
});
