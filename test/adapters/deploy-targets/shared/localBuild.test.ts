// The clone of a build (issue 83): a repo_url stored before the API refused git's remote
// helpers is refused by git itself (GIT_ALLOW_PROTOCOL), and a remote that accepts and never
// answers ends the clone at its own bound, not at the build's.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { buildRevision, type BuildRequest } from '../../../../src/adapters/deploy-targets/shared/localBuild.ts';
import { DEFAULT_LIMITS, Sandboxes } from '../../../../src/adapters/deploy-targets/shared/sandbox.ts';
import { LogWriter } from '../../../../src/adapters/log-files/revisionLogFiles.ts';
import { tempDir } from '../../../support/server.ts';

const root = tempDir('agentplane-clone-');
after(() => fs.rmSync(root, { recursive: true, force: true }));

async function clone(repoUrl: string, extra: Partial<BuildRequest> = {}) {
  const sandboxes = new Sandboxes({ mode: 'none', root: path.join(root, 'workspaces'), limits: DEFAULT_LIMITS, baseEnv: process.env });
  const sandbox = await sandboxes.prepare(`d-${Math.random().toString(16).slice(2)}`);
  const log = new LogWriter(path.join(root, `${Math.random()}.log`));
  log.reset();
  return buildRevision({
    repoUrl,
    repoRef: null,
    configPath: 'langgraph.json',
    installCommand: null,
    buildCommand: null,
    checkoutDir: path.join(sandbox.workspace, 'checkout'),
    sandbox,
    variables: {},
    redact: (text) => text,
    timeoutMs: 60_000,
    signal: new AbortController().signal,
    log,
    checkoutOnly: true,
    ...extra,
  });
}

describe('the clone of a build', () => {
  it("refuses git's remote helpers, whatever the API let through before", async () => {
    const marker = path.join(root, 'ext-ran');
    for (const url of [`ext::sh -c touch% ${marker}`, 'fd::17']) {
      const started = Date.now();
      const result = await clone(url);
      assert.equal(result.ok, false, url);
      assert.match(!result.ok ? result.reason : '', /not allowed|unsupported|transport/i, url);
      assert.ok(Date.now() - started < 20_000, `${url} took ${Date.now() - started} ms`);
    }
    assert.equal(fs.existsSync(marker), false, 'ext:: ran its command');
  });

  it('ends a clone that never gets an answer at its own bound', async () => {
    const held: net.Socket[] = [];
    const silent = net.createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as net.AddressInfo;
      const started = Date.now();
      const result = await clone(`http://127.0.0.1:${port}/repo.git`, { cloneTimeoutMs: 1500 });
      assert.equal(result.ok, false);
      assert.match(!result.ok ? result.reason : '', /git clone.*timed out/);
      assert.ok(Date.now() - started < 15_000, `the clone took ${Date.now() - started} ms`);
    } finally {
      held.forEach((s) => s.destroy());
      silent.close();
    }
  });
});
