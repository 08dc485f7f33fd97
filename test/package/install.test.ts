// The npm package as a user gets it: the project is built and packed, the tarball installed
// into an empty project (an ordinary LangGraph.js project with its own dependencies), and
// the installed command is run there — --version, serve, mock and dev. One build, one pack
// and one install serve every test here.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { ROOT, tempDir } from '../support/server.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/byo-project');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; bin: Record<string, string>; files: string[] };
const BIN = Object.keys(manifest.bin)[0]!;

describe('the npm package, installed from its tarball', () => {
  let project: string;
  let tarballFiles: string[];
  const children: ChildProcess[] = [];

  before(async () => {
    // a copy of what `files` lists, built into its own dist/ (never the working tree's, which
    // other tests serve from), packed as `npm publish` would
    const stage = tempDir('agentplane-stage-');
    for (const entry of [...manifest.files, 'package.json', 'README.md']) {
      if (entry.replace(/\/$/, '') === 'dist') continue;
      fs.cpSync(path.join(ROOT, entry), path.join(stage, entry), { recursive: true });
    }
    execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/build.ts'), '--out', path.join(stage, 'dist')], { cwd: ROOT, stdio: 'pipe' });
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--loglevel=error'], { cwd: stage, encoding: 'utf8' })) as { filename: string; files: { path: string }[] }[];
    tarballFiles = packed!.files.map((f) => f.path);

    project = tempDir('agentplane-installed-');
    fs.cpSync(FIXTURE, project, { recursive: true });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', path.join(stage, packed!.filename)], { cwd: project, stdio: 'pipe' });
  });
  after(() => {
    for (const child of children) child.kill('SIGTERM');
  });

  /** Runs the installed command in the project until it logs the address it listens on. */
  const start = async (args: string[], env: Record<string, string> = {}): Promise<{ url: string; output: () => string }> => {
    const child = spawn(path.join(project, 'node_modules/.bin', BIN), args, {
      cwd: project,
      env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', AGENTPLANE_ACCESS_LOG: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${args[0]} did not start:\n${output}`)), 60_000);
      child.stdout!.on('data', () => {
        const m = /"msg":"agentplane listening","url":"([^"]+)"/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}:\n${output}`)));
    });
    return { url, output: () => output };
  };

  it('holds the compiled server, the spec, the generated code and the example graphs, and no TypeScript of its own', () => {
    for (const file of ['bin/agentplane.js', 'dist/src/main.js', 'dist/generated/agent-server/document.gen.js', 'dist/ui/index.html', 'spec/agent-server.openapi.yaml', 'spec/a2a.openrpc.json', 'examples/graphs/echo.ts']) {
      assert.ok(tarballFiles.includes(file), `${file} is in the tarball`);
    }
    // without TypeScript sources there is nothing of agentplane's for tsx to compile:
    // the only .ts files are the example graphs, which are a project's graphs
    assert.deepEqual(tarballFiles.filter((f) => /\.(c|m)?tsx?$/.test(f) && !f.endsWith('.d.ts') && !f.startsWith('examples/')), []);
    assert.deepEqual(tarballFiles.filter((f) => /^(test|scripts|\.ci|src|ui|node_modules)\//.test(f)), []);
  });

  it(`npx ${BIN} --version prints the package version`, () => {
    const out = execFileSync('npx', ['--no-install', BIN, '--version'], { cwd: project, encoding: 'utf8' });
    assert.equal(out.trim(), manifest.version);
  });

  it('serve answers /ok, serves the spec and keeps its keys in --data', async () => {
    const data = tempDir('agentplane-installed-data-');
    const { url } = await start(['serve', '--data', data]);
    const res = await fetch(`${url}/ok`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true });
    assert.ok(fs.existsSync(path.join(data, 'api-keys.json')));
    const docs = await fetch(`${url}/spec/agent-server.openapi.yaml`);
    assert.equal(docs.status, 200);
  });

  it('conformance --url runs the compiled suite against the installed serve', async () => {
    const data = tempDir('agentplane-installed-conformance-');
    const { url } = await start(['serve', '--data', data], { AGENTPLANE_PHASE_MS: '5', AGENTPLANE_ACCESS_LOG: '0' });
    const { keys } = JSON.parse(fs.readFileSync(path.join(data, 'api-keys.json'), 'utf8')) as { keys: { key: string }[] };
    const junit = path.join(data, 'conformance.xml');
    const out = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(path.join(project, 'node_modules/.bin', BIN), ['conformance', '--url', url, '--api-key', keys[0]!.key, '--runs', '2', '--documents', 'control-plane', '--junit', junit], { cwd: project, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    assert.equal(out.code, 0, out.output.slice(-3000));
    assert.match(fs.readFileSync(junit, 'utf8'), /<testcase name="listDeployments/);
  });

  it('mock answers from the spec', async () => {
    const { url } = await start(['mock']);
    const res = await fetch(`${url}/threads`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 200);
    assert.match(((await res.json()) as { thread_id: string }).thread_id, /^[0-9a-f-]{36}$/);
  });

  it('dev serves the project’s TypeScript graph, routes and auth (loaded by tsx)', async () => {
    const { url } = await start(['dev', '--memory']);
    const res = await fetch(`${url}/runs/wait`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer user-alice' },
      body: JSON.stringify({ assistant_id: 'greeter', input: { messages: [{ role: 'user', content: 'Alice' }] } }),
    });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { messages: { content: string }[] }).messages.at(-1)!.content, 'Bonjour, Alice!');
    const hello = await fetch(`${url}/hello`);
    assert.deepEqual(await hello.json(), { hello: 'from the project', greeting: 'Bonjour' });
    const info = (await (await fetch(`${url}/info`)).json()) as { version: string; langgraph_js_version: string };
    assert.equal(info.version, manifest.version);
  });
});
