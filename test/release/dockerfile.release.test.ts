// The Dockerfile's steps, run without a container engine (there is none on the test
// machine): every RUN of both stages, then the ENTRYPOINT/CMD and the HEALTHCHECK, in a clean
// folder standing in for the image's file system, as an unprivileged user. The image's
// absolute folders (/src, /opt/agentplane, /project, /data) are mapped into that folder;
// COPY takes the files git knows (the build context, as .dockerignore leaves it). USER is
// moot (every step runs unprivileged), so `chown` to the image's `node` user is a no-op shim.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { ROOT, tempDir } from '../support/server.ts';
import { freePort } from '../../scripts/freePort.ts';

interface Instruction {
  stage: number;
  op: string;
  args: string;
}

/** The Dockerfile's instructions (continuation lines joined, comments dropped). */
function parseDockerfile(text: string): Instruction[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  let stage = -1;
  return lines.map((line) => {
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(line)!;
    if (op!.toUpperCase() === 'FROM') stage += 1;
    return { stage, op: op!.toUpperCase(), args: args!.trim() };
  });
}

const execForm = (args: string): string[] => JSON.parse(args) as string[];
const UNPRIVILEGED = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];

describe('the Dockerfile, step by step, as an unprivileged user', () => {
  const instructions = parseDockerfile(fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const root = tempDir('agentplane-image-');
  const children: ChildProcess[] = [];
  // image folders → folders under root
  const imageDirs = ['/src', '/opt/agentplane', '/project', '/data'];
  const mapPaths = (text: string) =>
    imageDirs.reduce((t, dir) => t.replace(new RegExp(`(^|[\\s"'=:])${dir.replace(/\//g, '\\/')}(?=[/\\s"']|$)`, 'g'), `$1${root}${dir}`), text);
  let env: Record<string, string> = {};
  let workdir = root;
  let entrypoint: string[] = [];
  let cmd: string[] = [];
  let healthcheck = '';

  const run = (command: string, cwd: string, extraEnv: Record<string, string> = {}) => {
    const result = spawnSync(UNPRIVILEGED[0] ?? 'sh', [...UNPRIVILEGED.slice(1), ...(UNPRIVILEGED.length ? ['sh'] : []), '-c', mapPaths(command)], {
      cwd,
      env: {
        PATH: `${root}/shims:${process.env.PATH}`,
        HOME: `${root}/home`,
        npm_config_cache: `${root}/npm-cache`,
        npm_config_prefer_offline: 'true',
        npm_config_update_notifier: 'false',
        ...env,
        ...extraEnv,
      },
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(result.status, 0, `RUN ${command} failed:\n${result.stdout}\n${result.stderr}`);
  };

  before(() => {
    fs.mkdirSync(path.join(root, 'shims'), { recursive: true });
    fs.writeFileSync(
      path.join(root, 'shims/chown'),
      '#!/bin/sh\n# the unprivileged user owns what it created; giving it to the image user needs root\nexit 0\n',
      { mode: 0o755 },
    );
    fs.mkdirSync(path.join(root, 'home'));
    // the npm cache the machine already has, so the steps run offline as they would with a warm layer cache
    const cache = path.join(os.homedir(), '.npm/_cacache');
    // but its tmp/: npm processes of the files running beside this one make and remove folders
    // there while the copy walks it (seen in CI: ENOENT on a file of _cacache/tmp)
    if (fs.existsSync(cache))
      fs.cpSync(cache, path.join(root, 'npm-cache/_cacache'), {
        recursive: true,
        filter: (source) => path.relative(cache, source).split(path.sep)[0] !== 'tmp',
      });
    const context = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter((f) => f && fs.existsSync(path.join(ROOT, f)));
    const ignored = fs
      .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const buildContext = context.filter((f) => !ignored.some((pattern) => f === pattern || f.startsWith(`${pattern}/`)));

    for (const step of instructions) {
      if (step.op === 'FROM') {
        env = {};
        workdir = root;
      } else if (step.op === 'ENV') {
        for (const [, key, value] of step.args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[key!] = mapPaths(value!.replace(/^"|"$/g, ''));
      } else if (step.op === 'WORKDIR') {
        workdir = mapPaths(step.args);
        fs.mkdirSync(workdir, { recursive: true });
      } else if (step.op === 'COPY') {
        const from = /--from=\S+\s+/.test(step.args);
        const parts = step.args.replace(/--\S+\s+/g, '').split(/\s+/);
        const dest = path.resolve(workdir, mapPaths(parts.pop()!));
        for (const source of parts) {
          // the stages share one folder here: a folder copied to the same place is there already
          if (from && path.resolve(mapPaths(source)) === dest) continue;
          if (from) {
            // a glob of the build stage's output
            const dir = path.dirname(mapPaths(source));
            const pattern = new RegExp(`^${path.basename(source).replace(/\./g, '\\.').replace(/\*/g, '.*')}$`);
            for (const name of fs.readdirSync(dir).filter((n) => pattern.test(n))) fs.cpSync(path.join(dir, name), path.join(dest, name));
          } else if (source === '.') {
            for (const file of buildContext) fs.cpSync(path.join(ROOT, file), path.join(dest, file), { recursive: true });
          } else fs.cpSync(path.join(ROOT, source), path.join(dest, source));
        }
      } else if (step.op === 'RUN') {
        if (UNPRIVILEGED.length) execFileSync('chown', ['-R', '65534:65534', root]);
        run(step.args, workdir);
      } else if (step.op === 'ENTRYPOINT') entrypoint = execForm(step.args).map(mapPaths);
      else if (step.op === 'CMD') cmd = execForm(step.args);
      else if (step.op === 'HEALTHCHECK') healthcheck = step.args.replace(/^.*?\bCMD\s+/, '');
    }
    if (UNPRIVILEGED.length) execFileSync('chown', ['-R', '65534:65534', root]);
  });
  after(() => {
    for (const child of children) child.kill('SIGTERM');
  });

  /** The image's start command (ENTRYPOINT + CMD, or + the given command) on a free port. */
  const start = async (command: string[]): Promise<{ port: number; output: () => string }> => {
    const port = await freePort();
    const [file, ...args] = [...entrypoint, ...command];
    // HOST stays as the image sets it apart from here: tests bind loopback only
    const child = spawn(UNPRIVILEGED[0] ?? file!, [...UNPRIVILEGED.slice(1), ...(UNPRIVILEGED.length ? [file!] : []), ...args], {
      cwd: workdir,
      env: { PATH: process.env.PATH, HOME: `${root}/home`, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 60_000);
      child.stdout!.on('data', () => {
        if (/agentplane listening/.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    });
    return { port, output: () => output };
  };

  it('is multi-stage, runs as a non-root user, serves on 0.0.0.0 with data on a volume and a HEALTHCHECK on /ok', () => {
    assert.equal(instructions.filter((i) => i.op === 'FROM').length, 2);
    const final = instructions.filter((i) => i.stage === 1);
    assert.equal(final.filter((i) => i.op === 'USER').at(-1)?.args, 'node');
    assert.match(final.find((i) => i.op === 'ENV')!.args, /HOST=0\.0\.0\.0/);
    assert.match(final.find((i) => i.op === 'ENV')!.args, /DATA_DIR=\/data/);
    assert.equal(final.find((i) => i.op === 'VOLUME')?.args, '/data');
    assert.match(healthcheck, /\/ok/);
    // the runtime image holds the package and its runtime dependencies, no sources, no dev tools
    assert.ok(fs.existsSync(path.join(root, 'opt/agentplane/dist/src/cli/main.js')));
    assert.ok(!fs.existsSync(path.join(root, 'opt/agentplane/node_modules/typescript')));
    assert.ok(!fs.existsSync(path.join(root, 'opt/agentplane/src')));
    // the port of upstream's images and of the images agentplane-server build makes
    assert.match(final.find((i) => i.op === 'ENV')!.args, /PORT=8000/);
  });

  it('starts with its CMD, keeps its keys on the volume and passes its HEALTHCHECK', async () => {
    const { port } = await start(cmd);
    assert.equal((await fetch(`http://127.0.0.1:${port}/ok`)).status, 200);
    assert.ok(fs.existsSync(path.join(root, 'data/api-keys.json')), 'keys on /data');
    const check = spawnSync(UNPRIVILEGED[0] ?? 'sh', [...UNPRIVILEGED.slice(1), ...(UNPRIVILEGED.length ? ['sh'] : []), '-c', healthcheck], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      encoding: 'utf8',
    });
    assert.equal(check.status, 0, check.stderr);
  });

  it('serves mock mode with `docker run … mock`, accepting the key kept on the volume', async () => {
    const { port } = await start(['mock']);
    const { keys } = JSON.parse(fs.readFileSync(path.join(root, 'data/api-keys.json'), 'utf8')) as { keys: { key: string }[] };
    const res = await fetch(`http://127.0.0.1:${port}/v2/deployments`, { headers: { 'X-Api-Key': keys[0]!.key } });
    assert.equal(res.status, 200);
  });
});
