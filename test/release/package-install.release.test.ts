// The npm package as a user gets it: the project is built and packed, the tarball installed
// into an empty project (an ordinary LangGraph.js project with its own dependencies), and
// the installed command is run there — --version, serve, mock and dev — and in empty folders
// beside it as a newcomer would: what the start says to do next, --examples, init, and dev
// offering to scaffold. One build, one pack and one install serve every test here.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ROOT, tempDir } from '../support/server.ts';
import { logLine } from '../support/logLines.ts';
import { compiledIsCurrent } from '../../bin/compiledSources.js';

const FIXTURE = path.join(ROOT, 'test/fixtures/byo-project');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  files: string[];
};
const BIN = Object.keys(manifest.bin)[0]!;

describe('the npm package, installed from its tarball', () => {
  let project: string;
  let tarballFiles: string[];
  const children: ChildProcess[] = [];

  before(async () => {
    // a copy of what `files` lists, packed as `npm publish` would. Its dist/ is the working
    // tree's while that was built from the sources as they are (npm ci leaves it so: the same
    // build, ~13 CPU-s not spent again), else a build of its own (never into the working
    // tree's dist/, which other tests serve from)
    const stage = tempDir('agentplane-stage-');
    const current = compiledIsCurrent(ROOT);
    for (const entry of [...manifest.files, 'package.json', 'README.md']) {
      if (entry.replace(/\/$/, '') === 'dist' && !current) continue;
      fs.cpSync(path.join(ROOT, entry), path.join(stage, entry), { recursive: true });
    }
    if (!current)
      execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/build.ts'), '--out', path.join(stage, 'dist')], { cwd: ROOT, stdio: 'pipe' });
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--loglevel=error'], { cwd: stage, encoding: 'utf8' })) as {
      filename: string;
      files: { path: string }[];
    }[];
    tarballFiles = packed!.files.map((f) => f.path);

    project = tempDir('agentplane-installed-');
    fs.cpSync(FIXTURE, project, { recursive: true });
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', path.join(stage, packed!.filename)], {
      cwd: project,
      stdio: 'pipe',
    });
  });
  after(() => {
    for (const child of children) child.kill('SIGTERM');
  });

  /** Runs the installed command (in the project, or `cwd`) until it logs the address it listens on. */
  const start = async (args: string[], env: Record<string, string> = {}, cwd = project): Promise<{ url: string; output: () => string }> =>
    listening(
      spawn(path.join(project, 'node_modules/.bin', BIN), args, {
        cwd,
        env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', AGENTPLANE_ACCESS_LOG: '1', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
      args[0]!,
    );

  const listening = async (child: ChildProcess, name: string): Promise<{ url: string; output: () => string }> => {
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 60_000);
      // and its start banner, which goes to stderr when piped and may be read after stdout's line
      const check = () => {
        const listening = logLine(output, 'agentplane listening');
        if (listening && /\bAPI\s+http/.test(output)) {
          clearTimeout(timer);
          resolve(listening.url);
        }
      };
      child.stdout!.on('data', check);
      child.stderr!.on('data', check);
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${output}`)));
    });
    return { url, output: () => output };
  };

  /** A new empty folder inside the project (so the project's packages resolve from it, as after `npm install agentplane-server`). */
  const emptyFolder = (name: string) => {
    const dir = path.join(project, name);
    fs.mkdirSync(dir);
    return dir;
  };

  const lastReply = async (url: string, assistant: string, text: string) => {
    const res = await fetch(`${url}/runs/wait`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ assistant_id: assistant, input: { messages: [{ role: 'user', content: text }] } }),
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { messages: { content: string }[] }).messages.at(-1)!.content;
  };

  it('holds the compiled server, the spec, the generated code and the example graphs, and no TypeScript of its own', () => {
    for (const file of [
      'bin/agentplane.js',
      'dist/src/cli/main.js',
      'dist/generated/agent-server/document.gen.js',
      'dist/ui/index.html',
      'spec/agent-server.openapi.yaml',
      'spec/a2a.openrpc.json',
      'examples/graphs/echo.ts',
      'examples/agentplane.json',
    ]) {
      assert.ok(tarballFiles.includes(file), `${file} is in the tarball`);
    }
    // without TypeScript sources there is nothing of agentplane's for tsx to compile:
    // the only .ts files are the example graphs, which are a project's graphs
    assert.deepEqual(
      tarballFiles.filter((f) => /\.(c|m)?tsx?$/.test(f) && !f.endsWith('.d.ts') && !f.startsWith('examples/')),
      [],
    );
    assert.deepEqual(
      tarballFiles.filter((f) => /^(test|scripts|\.ci|src|ui|node_modules)\//.test(f)),
      [],
    );
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

  // The one real-mode run of `conformance --url` in the release checks (a run is a minute of
  // CPU; test/cli/main.conformanceCommand.release.test.ts checks the command's failure and usage
  // paths): the installed package's compiled suite against the installed serve as a fresh start
  // leaves it, with no settings — the API key and the auth service's token key made in the data
  // directory (authenticate answered, not 501). Two random cases per property: the edge cases
  // all run whatever the depth, and a second case still meets the state the first left.
  it('conformance --url runs the compiled suite against the installed serve as a fresh start leaves it (no settings), with a JUnit report', async () => {
    const data = tempDir('agentplane-installed-conformance-');
    const { url } = await start(['serve', '--data', data], { AGENTPLANE_ACCESS_LOG: '0' });
    const { keys } = JSON.parse(fs.readFileSync(path.join(data, 'api-keys.json'), 'utf8')) as { keys: { key: string }[] };
    const junit = path.join(data, 'conformance.xml');
    const args = ['--url', url, '--api-key', keys[0]!.key, '--mode', 'real', '--documents', 'control-plane', '--runs', '2', '--seed', '42', '--junit', junit];
    const out = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(path.join(project, 'node_modules/.bin', BIN), ['conformance', ...args], { cwd: project, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
        resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    assert.equal(out.code, 0, out.output.slice(-3000));
    assert.match(out.output, /ℹ fail 0/);
    const xml = fs.readFileSync(junit, 'utf8');
    assert.match(xml, /<testsuites>/);
    assert.match(xml, /<testcase name="listDeployments/);
    assert.match(xml, /<testcase name="getDeployment \(GET \/v2\/deployments\/\{deployment_id\}\)"/);
    assert.doesNotMatch(xml, /<failure/);
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

  it('serve in an empty folder says what to do next: init, --examples or a langgraph.json', async () => {
    const { output } = await start(['serve', '--memory'], {}, emptyFolder('empty-serve'));
    assert.match(
      output(),
      /no project file .*: the agent server has no graphs\. Next: npx agentplane-server init — scaffold .*; npx agentplane-server serve --examples — serve the shipped example graphs/,
    );
  });

  it('serve --examples serves the shipped graphs: echo, agent, and approval and breakpoint (which stop for a person)', async () => {
    const { url } = await start(['serve', '--memory', '--examples'], {}, emptyFolder('empty-examples'));
    assert.equal(await lastReply(url, 'echo', 'hello'), 'hello');
    const assistants = (await (
      await fetch(`${url}/assistants/search`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })
    ).json()) as { graph_id: string }[];
    assert.deepEqual(assistants.map((a) => a.graph_id).sort(), ['agent', 'approval', 'breakpoint', 'connected', 'echo']);
  });

  it('dev in an empty folder without a terminal asks nothing, starts, and says how to run init', async () => {
    const dir = emptyFolder('empty-dev');
    const { output } = await start(['dev', '--memory'], {}, dir);
    assert.match(output(), /npx agentplane-server init/);
    assert.deepEqual(fs.readdirSync(dir), [], 'nothing was written');
  });

  it('init scaffolds a minimal project whose package.json installs and that dev serves; a second init writes nothing', async () => {
    const dir = emptyFolder('scaffolded');
    const run = (args: string[]) => spawnSync(path.join(project, 'node_modules/.bin', BIN), args, { cwd: dir, encoding: 'utf8' });
    const created = run(['init']);
    assert.equal(created.status, 0, created.stderr);
    assert.match(created.stdout, /Created in .*: langgraph\.json, src\/agent\.ts, package\.json\n/);
    assert.match(created.stdout, /Next: npx agentplane-server dev/);
    const graph = fs.readFileSync(path.join(dir, 'src/agent.ts'), 'utf8');
    // the new project's own dependencies, as its user installs them: dev then serves its LangGraph
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir, stdio: 'pipe' });
    const installed = (JSON.parse(fs.readFileSync(path.join(dir, 'node_modules/@langchain/langgraph/package.json'), 'utf8')) as { version: string }).version;
    const { url } = await start(['dev', '--memory', '--no-reload'], {}, dir);
    assert.equal(await lastReply(url, 'agent', 'hi'), 'You said: hi');
    assert.equal(((await (await fetch(`${url}/info`)).json()) as { langgraph_js_version: string }).langgraph_js_version, installed);
    const again = run(['init']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already has langgraph\.json, src\/agent\.ts; nothing was written/);
    assert.equal(fs.readFileSync(path.join(dir, 'src/agent.ts'), 'utf8'), graph);
  });

  // `script` (util-linux) gives the command a terminal, as a person running it has
  const hasScript = spawnSync('script', ['--version']).status === 0;
  it(
    'dev in an empty folder at a terminal offers to scaffold, and serves the new project on yes',
    { skip: !hasScript && 'no `script` command to give dev a terminal' },
    async () => {
      const dir = emptyFolder('empty-dev-tty');
      const command = [path.join(project, 'node_modules/.bin', BIN), 'dev', '--memory', '--no-reload'].map((a) => `'${a}'`).join(' ');
      const child = spawn('script', ['-qefc', command, '/dev/null'], {
        cwd: dir,
        env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let asked = '';
      child.stdout!.on('data', function onData(d) {
        asked += d;
        if (/\[Y\/n\]/.test(asked)) {
          child.stdout!.off('data', onData);
          child.stdin!.write('y\n');
        }
      });
      const { url, output } = await listening(child, 'dev at a terminal');
      assert.match(output(), /Scaffold a minimal project here \(langgraph\.json, src\/agent\.ts, its dependencies in package\.json\)\? \[Y\/n\]/);
      assert.ok(fs.existsSync(path.join(dir, 'langgraph.json')));
      assert.equal(await lastReply(url, 'agent', 'hi'), 'You said: hi');
    },
  );
});
