// agentplane-server build on a machine with podman and no registry: the project becomes an
// image (base and server layers built here from this machine's Node.js and this checkout)
// that serves its graphs on port 8000.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../support/server.ts';
import { buildImage } from '../../../src/adapters/images/buildImage.ts';
import { buildWithCli, CONTAINERS_CONF, echoProject, eventually, nodeInImage, podman, removeImages, testEngine, testTag } from '../../containers/support.ts';

describe('agentplane-server build', () => {
  const tag = testTag('build');
  let container = '';

  after(() => {
    if (container) podman('rm', '--force', container);
    removeImages(tag);
  });

  it(
    'builds a project into an image that serves its graphs on port 8000, without its dotenv files and what its .dockerignore names',
    { timeout: 600_000 },
    async () => {
      const project = echoProject('built');
      // the project's env file holds secrets: left out, so the image (pushed, shared) never holds them
      fs.writeFileSync(path.join(project, 'langgraph.json'), JSON.stringify({ graphs: { echo: './graph.mjs:echo' }, env: '.env' }));
      fs.writeFileSync(path.join(project, '.env'), 'OPENAI_API_KEY=sk-in-dotenv\n');
      fs.mkdirSync(path.join(project, 'config'));
      fs.writeFileSync(path.join(project, 'config', '.env.production'), 'TOKEN=tok-in-dotenv\n');
      fs.writeFileSync(path.join(project, '.env.example'), 'OPENAI_API_KEY=\n');
      // read as Docker reads it: anchored at the root, `**`, `!` exceptions (the last match wins)
      fs.writeFileSync(path.join(project, '.dockerignore'), '# local only\nnotes\n**/*.log\n!keep.log\n!.env.example\n');
      for (const file of ['notes/todo.txt', 'keep.log', 'debug.log', 'config/trace.log', 'config/app.json']) {
        fs.mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
        fs.writeFileSync(path.join(project, file), 'x');
      }
      const build = buildWithCli(tag, path.join(project, 'langgraph.json'));
      assert.equal(build.status, 0, `${build.stdout}\n${build.stderr}`);
      assert.match(build.stdout, new RegExp(`Built ${tag.replace(/[.:/]/g, '\\$&')}`));

      // its defaults: the server on 0.0.0.0:8000, the project's file, no control plane
      container = podman('run', '--detach', '--publish', '127.0.0.1::8000', tag);
      const url = `http://${podman('port', container, '8000').split('\n')[0]}`;
      await eventually('/ok', async () => (await fetch(`${url}/ok`)).ok);
      const assistants = (await (
        await fetch(`${url}/assistants/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      ).json()) as { graph_id: string }[];
      assert.deepEqual(
        assistants.map((a) => a.graph_id),
        ['echo'],
      );
      assert.equal((await fetch(`${url}/v2/deployments`)).status, 404);
      assert.equal(podman('image', 'inspect', '--format', '{{.Config.User}}', tag), 'node');

      // what the image holds of the project: the env file empty (the project still loads), the rest per .dockerignore
      const listing = nodeInImage(
        tag,
        `const fs = require('fs'); const dir = '/deps/${path.basename(project)}'; for (const f of fs.readdirSync(dir, { recursive: true }).sort()) if (fs.statSync(dir + '/' + f).isFile()) console.log(f, fs.statSync(dir + '/' + f).size)`,
      );
      const size = (file: string) => `${file} ${fs.statSync(path.join(project, file)).size}`;
      assert.deepEqual(listing.split('\n'), [
        size('.dockerignore'),
        '.env 0',
        size('.env.example'),
        size('config/app.json'),
        size('graph.mjs'),
        size('keep.log'),
        size('langgraph.json'),
      ]);
      assert.match(build.stdout, /Left out of the image .*: \.env, config\/\.env\.production, config\/trace\.log, debug\.log, notes\//);
    },
  );

  it(
    'a build whose cached steps are removed under it (another image removed at that moment) builds them again and succeeds',
    { timeout: 600_000 },
    async () => {
      // Every project's image shares the steps up to its COPY (the server image, `USER root`).
      // Removing an image also removes the intermediate images only it held: removed just as
      // another build has taken one from its cache, that build's next step finds it gone (the
      // CI failure of 2026-11-25: "layer not known"; here mostly "image not known").
      const engine = testEngine();
      const rounds = 3;
      for (let round = 1; round <= rounds; round++) {
        const [held, building] = [testTag('held'), testTag('building')];
        try {
          await buildImage(engine, { tag: held, projectDir: echoProject(`held ${round}`), configPath: 'langgraph.json', packageRoot: ROOT });
          let removal: Promise<string> | undefined;
          const lines: string[] = [];
          const onLine = (line: string) => {
            lines.push(line);
            if (!removal && line.startsWith('--> Using cache')) removal = engine.run(['rmi', '--force', held]);
          };
          await buildImage(
            engine,
            { tag: building, projectDir: echoProject(`building ${round}`), configPath: 'langgraph.json', packageRoot: ROOT },
            { onLine },
          );
          await removal;
          assert.ok(removal, `the build took a step from its cache:\n${lines.join('\n')}`);
          assert.equal(await engine.hasImage(building), true);
          assert.equal(await engine.hasImage(held), false);
        } finally {
          removeImages(held, building);
        }
      }
    },
  );

  it('says what is missing, and builds nothing, in a folder without a project file', () => {
    const empty = tempDir('agentplane-build-empty-');
    const build = spawnSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'build', '-t', tag], {
      cwd: empty,
      env: { ...process.env, CONTAINERS_CONF },
      encoding: 'utf8',
    });
    assert.equal(build.status, 1);
    assert.match(build.stderr, /no project file \(agentplane\.json or langgraph\.json\) in .*; name one with -c/);
    const unknownEngine = spawnSync(process.execPath, [path.join(ROOT, 'bin/agentplane.js'), 'build', '-t', tag, '--engine', 'lxc'], {
      cwd: empty,
      encoding: 'utf8',
    });
    assert.equal(unknownEngine.status, 2);
    assert.match(unknownEngine.stderr, /Allowed choices are podman, docker/);
  });
});
