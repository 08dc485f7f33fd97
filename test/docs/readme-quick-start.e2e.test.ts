// The README's quick-start blocks run as pasted: every ```sh block marked with a
// `<!-- quick-start … -->` comment is run by bash (-e, pipefail) in a folder where a real
// server was started as the README says (`serve --examples`, data in ./data, so the key is
// read from there), with PORT set to the test server's port as the README tells a reader on
// another port to set it (8123 may be taken here): the block names the port in that one
// variable and nowhere else. No placeholder may be left for the reader to fill in.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, spawnServer, tempDir, type ChildServer } from '../support/server.ts';

const blocks = [...fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(/<!-- quick-start[^>]*-->\n```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe("the README's quick-start blocks", () => {
  let server: ChildServer;
  let folder: string;
  before(async () => {
    folder = tempDir('agentplane-readme-');
    server = await spawnServer(['--data', 'data', '--examples'], {}, folder);
  });
  after(async () => {
    await server?.kill('SIGTERM');
  });

  it('are there: the calling-it block is marked', () => {
    assert.ok(blocks.length >= 1);
    assert.ok(blocks.some((block) => block.includes('/threads')));
  });

  it('run as pasted against a server started as the README says', () => {
    for (const block of blocks) {
      assert.doesNotMatch(block, /<[a-z_]+>|\.\.\.(?!\w)/, 'no placeholder for the reader to fill in');
      assert.doesNotMatch(block, /127\.0\.0\.1:8123/, 'the port only as the default of ${PORT}');
      const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', block], {
        cwd: folder,
        env: { ...process.env, PORT: new URL(server.url).port },
        encoding: 'utf8',
        timeout: 120_000,
      });
      assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
      const out = run.stdout;
      // no answer was a problem (4xx/5xx) or a JSON-RPC error
      assert.doesNotMatch(out, /"status":\s*[45]\d\d|"error":/, out);
      if (block.includes('/v2/deployments')) assert.equal(out.match(/"name":"readme-image"/g)?.length, 2, 'created, then listed');
      if (block.includes('/runs/wait'))
        assert.match(out, /"content":"hello"[^{}]*"type":"ai"|"type":"ai"[^{}]*"content":"hello"/, 'the echo graph answered on the captured thread');
      if (block.includes('agent-card.json')) assert.ok(out.includes(`"url":"${server.url}/a2a/echo"`), 'the agent card');
      if (block.includes('message/send')) assert.match(out, /"state":"completed"/, 'the A2A task completed');
    }
  });
});
