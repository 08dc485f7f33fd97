// Issue 28, item 7: `agentplane dev > server.log` in the project folder reloaded forever (each
// reload logs, the log is a change, the change reloads). Only the modules the project loaded and
// its own files count: here two edits of the graph make exactly two reloads, each naming the
// graph, while the server writes its log into the folder it watches; and a graph that writes a
// .json and a .ts file into the project on each run never reloads it, nor does a script nothing
// imports, while an edit of a helper the graph imports does.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, tempDir } from '../../support/server.ts';

const FIXTURE = path.join(ROOT, 'test/fixtures/slow-project');

/** `agentplane dev` in `dir`, its JSON log written into the project folder. */
function devServer(dir: string) {
  const logFile = path.join(dir, 'server.log');
  const out = fs.openSync(logFile, 'a');
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'dev', '--data', path.join(dir, '.state')], {
    cwd: dir,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  const lines = () =>
    fs
      .readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string; files?: string[]; url?: string });
  /** Polls the log file (the server writes it; nothing else tells this process) until `done` holds. */
  const waitFor = async (what: string, done: () => boolean, timeoutMs = 60_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${fs.readFileSync(logFile, 'utf8').slice(-4000)}`);
      if (child.exitCode !== null) throw new Error(`dev exited with ${child.exitCode}:\n${fs.readFileSync(logFile, 'utf8')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const reloads = () =>
    lines()
      .filter((l) => l.msg === 'project changed, reloading')
      .map((l) => l.files);
  /** Edits `file` and waits for the reload it causes (the reload naming it, then the graphs loaded). */
  const editAndWaitForReload = async (file: string, edit: number) => {
    fs.appendFileSync(path.join(dir, file), `\n// edit ${edit}\n`);
    await waitFor(
      `reload ${edit}`,
      () => reloads().filter((f) => f?.includes(file)).length >= edit && lines().filter((l) => l.msg === 'graphs reloaded').length >= edit,
    );
  };
  return {
    child,
    lines,
    waitFor,
    reloads,
    editAndWaitForReload,
    started: () => waitFor('the watcher', () => lines().some((l) => l.msg === 'watching the project for changes')),
  };
}

describe('agentplane dev writing its log into the project folder', () => {
  let dev: ReturnType<typeof devServer>;

  before(async () => {
    const dir = tempDir('agentplane-dev-log-');
    fs.cpSync(FIXTURE, dir, { recursive: true });
    dev = devServer(dir);
    await dev.started();
  });
  after(() => {
    dev?.child.kill('SIGTERM');
  });

  it('reloads once per edit of the graph, never on its own log lines', async () => {
    for (const edit of [1, 2]) await dev.editAndWaitForReload('slow.mjs', edit);
    assert.deepEqual(dev.reloads(), [['slow.mjs'], ['slow.mjs']], 'a reload for anything but the two edits (the log, the data directory) is the loop');
  });
});

describe('agentplane dev follows what the graph imports', () => {
  let dir: string;
  let dev: ReturnType<typeof devServer>;

  before(async () => {
    dir = tempDir('agentplane-dev-imports-');
    fs.writeFileSync(path.join(dir, 'agentplane.json'), JSON.stringify({ graphs: { writer: './writer.ts:writer' } }));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    fs.writeFileSync(path.join(dir, 'helper.ts'), "export const greeting: string = 'hello';\n");
    fs.writeFileSync(path.join(dir, 'unrelated.ts'), 'export const nobody = "imports this";\n');
    // each run writes a .json and a .ts file into the project folder: source-looking, never imported
    fs.writeFileSync(
      path.join(dir, 'writer.ts'),
      [
        "import fs from 'node:fs';",
        "import { greeting } from './helper.ts';",
        'let runs = 0;',
        'export async function writer() {',
        '  runs += 1;',
        "  fs.writeFileSync(new URL('./last-run.json', import.meta.url), JSON.stringify({ runs }));",
        "  fs.writeFileSync(new URL('./last-run.ts', import.meta.url), `export const runs = ${runs};`);",
        "  return { messages: [{ type: 'ai', content: greeting }] };",
        '}',
        '',
      ].join('\n'),
    );
    dev = devServer(dir);
    await dev.started();
  });
  after(() => {
    dev?.child.kill('SIGTERM');
  });

  const run = async () => {
    const url = dev.lines().find((l) => l.msg === 'agentplane listening')?.url;
    const res = await fetch(`${url}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'writer', input: { messages: [] } }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const values = (await res.json()) as { messages: { content: string }[] };
    return values.messages.at(-1)?.content;
  };

  it('reloads on an edit of an imported helper, never on the files its runs write or on an unrelated script', async () => {
    assert.equal(await run(), 'hello');
    assert.ok(fs.existsSync(path.join(dir, 'last-run.json')), 'the run wrote into the project folder');
    fs.appendFileSync(path.join(dir, 'unrelated.ts'), '// edited\n');
    await dev.editAndWaitForReload('helper.ts', 1);

    fs.writeFileSync(path.join(dir, 'helper.ts'), "export const greeting: string = 'hello again';\n");
    await dev.waitFor('reload 2', () => dev.lines().filter((l) => l.msg === 'graphs reloaded').length >= 2);
    assert.equal(await run(), 'hello again', 'the reload picked up the helper');
    fs.appendFileSync(path.join(dir, 'unrelated.ts'), '// edited again\n');
    await dev.editAndWaitForReload('helper.ts', 3);

    assert.deepEqual(dev.reloads(), [['helper.ts'], ['helper.ts'], ['helper.ts']], "the runs' .json/.ts files and unrelated.ts reload nothing");
  });
});
