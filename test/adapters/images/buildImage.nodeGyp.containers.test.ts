// agentplane-server build of a project whose dependency compiles a native addon at install
// (issue 90): node-gyp needs python3, make, a C compiler and Node's headers, which the slim
// server layer has none of ("gyp ERR! find Python" ended the build). The install now runs in a
// build stage with the toolchain (images/toolchainImage.ts) and the image served is the server
// layer with the project's folder as the install left it. The addon (N-API, written here) is a
// local dependency, so the install needs no registry.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../support/server.ts';
import { buildWithCli, lastReply, nodeInImage, podman, removeImages, serveImage, testTag, writeLockfile } from '../../containers/support.ts';

const ADDON_SOURCE = `#include <node_api.h>

static napi_value Twice(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  double n = 0;
  napi_value out;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  napi_get_value_double(env, argv[0], &n);
  napi_create_double(env, n * 2, &out);
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "twice", NAPI_AUTO_LENGTH, Twice, NULL, &fn);
  napi_set_named_property(env, exports, "twice", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
`;

/**
 * A project whose one dependency is an addon built from C at install (npm runs `node-gyp
 * rebuild` for its binding.gyp): a tarball packed here, so that npm installs a copy and runs
 * its install script as for a package from the registry; the project approves that script,
 * as `npm install-scripts approve` writes it (npm 11 blocks dependencies' scripts otherwise).
 */
function nodeGypProject(): string {
  const dir = tempDir('agentplane-node-gyp-');
  const addon = tempDir('agentplane-native-twice-');
  const write = (root: string, name: string, text: string) => fs.writeFileSync(path.join(root, name), text);
  write(addon, 'package.json', JSON.stringify({ name: 'native-twice', version: '1.0.0', main: 'index.js', gypfile: true }, null, 2));
  write(addon, 'binding.gyp', JSON.stringify({ targets: [{ target_name: 'twice', sources: ['twice.c'] }] }, null, 2));
  write(addon, 'twice.c', ADDON_SOURCE);
  write(addon, 'index.js', "module.exports = require('./build/Release/twice.node');\n");
  execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: addon, stdio: 'ignore' });
  const manifest = {
    name: 'node-gyp-project',
    private: true,
    dependencies: { 'native-twice': 'file:./native-twice-1.0.0.tgz' },
    allowScripts: { 'native-twice@1.0.0': true },
  };
  write(dir, 'package.json', JSON.stringify(manifest, null, 2));
  write(
    dir,
    'graph.mjs',
    [
      "import { createRequire } from 'node:module';",
      "const { twice } = createRequire(import.meta.url)('native-twice');",
      'export async function echo(state) {',
      "  return { messages: [{ role: 'assistant', content: `twice: ${twice(Number(state.messages.at(-1)?.content))}` }] };",
      '}',
      '',
    ].join('\n'),
  );
  write(dir, 'langgraph.json', JSON.stringify({ graphs: { echo: './graph.mjs:echo' } }));
  writeLockfile(dir);
  fs.rmSync(addon, { recursive: true, force: true });
  return dir;
}

describe('agentplane-server build of a project whose dependency compiles a native addon (node-gyp)', () => {
  const tag = testTag('node-gyp');
  const containers: string[] = [];
  after(() => {
    for (const container of containers) podman('rm', '--force', container);
    removeImages(tag);
  });

  it('compiles the addon in the build stage and serves it from the slim image', { timeout: 1_200_000 }, async () => {
    const project = nodeGypProject();
    const build = buildWithCli(tag, path.join(project, 'langgraph.json'));
    assert.equal(build.status, 0, `${build.stdout.split('\n').slice(-60).join('\n')}\n${build.stderr}`);
    const url = await serveImage(tag, containers).catch((err: Error) => {
      throw new Error(`${err.message}; the server's log:\n${containers.map((container) => podman('logs', container)).join('\n')}`);
    });
    assert.equal(await lastReply(url, 'echo', '21'), 'twice: 42');
    // the compiler stayed in the build stage
    assert.equal(
      nodeInImage(
        tag,
        "const fs = require('fs'); console.log(['/usr/bin/make', '/usr/bin/gcc', '/usr/bin/python3'].filter((f) => fs.existsSync(f)).join(',') || 'none')",
      ),
      'none',
    );
  });
});
