// The rules behind masking a deployment's secrets: credentials in a repo_url, the values
// masked in captured output, and the isolation a local deployer can promise.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { maskRepoUrl, repoUrlCredentials, sameRepoUrl } from '../../../src/domain/control-plane/repoUrl.ts';
import { redactor, secretValues } from '../../../src/domain/control-plane/redaction.ts';
import { isolationMode } from '../../../src/adapters/deploy-targets/shared/sandbox.ts';

describe('repo_url credentials', () => {
  it('masks a password, or a user name standing alone (a token), and nothing else', () => {
    assert.equal(maskRepoUrl('https://user:tok3n@github.com/acme/agent'), 'https://user:********@github.com/acme/agent');
    assert.equal(maskRepoUrl('https://ghp_abcdef@github.com/acme/agent'), 'https://********@github.com/acme/agent');
    assert.equal(maskRepoUrl('https://github.com/acme/agent'), 'https://github.com/acme/agent');
    assert.equal(maskRepoUrl('git@github.com:acme/agent.git'), 'git@github.com:acme/agent.git');
    assert.equal(maskRepoUrl('/srv/repos/agent'), '/srv/repos/agent');
    // an @ in the path is not user information
    assert.equal(maskRepoUrl('https://github.com/acme/agent@v2'), 'https://github.com/acme/agent@v2');
  });

  it('gives the credential as written and percent-decoded, to mask in output', () => {
    assert.deepEqual(repoUrlCredentials('https://u:p%40ss%2Fword@host/r'), ['p%40ss%2Fword', 'p@ss/word']);
    assert.deepEqual(repoUrlCredentials('https://host/r'), []);
    assert.deepEqual(repoUrlCredentials(null), []);
  });

  it('takes the masked URL sent back for the stored one', () => {
    const stored = 'https://u:secret@host/r';
    assert.ok(sameRepoUrl('https://u:********@host/r', stored));
    assert.ok(sameRepoUrl(stored, stored));
    assert.ok(!sameRepoUrl('https://u:********@other/r', stored));
  });
});

describe('redaction', () => {
  it('masks every secret value of a deployment, its repo_url credentials and their JSON-escaped forms, longest first', () => {
    const redact = redactor(
      secretValues({
        secrets: [
          { name: 'A', value: 'abcd' },
          { name: 'B', value: 'abcdef"gh' },
          { name: 'C', value: 'no' },
        ],
        source_config: { repo_url: 'https://x:t0ken-value@h/r' } as never,
      }),
    );
    assert.equal(redact('key abcdef"gh and abcd'), 'key ******** and ********');
    assert.equal(redact('{"m":"abcdef\\"gh"}'), '{"m":"********"}');
    assert.equal(redact('cloning with t0ken-value'), 'cloning with ********');
    // shorter than 4 characters: left alone, it would blank out ordinary words
    assert.equal(redact('no way'), 'no way');
  });
});

describe('isolation', () => {
  it('is per user when root, none otherwise, and refuses to promise users without root', () => {
    assert.equal(isolationMode('auto', true), 'user');
    assert.equal(isolationMode('auto', false), 'none');
    assert.equal(isolationMode('none', true), 'none');
    assert.throws(() => isolationMode('user', false), /AGENTPLANE_DEPLOYER_ISOLATION=user needs the control plane to run as root/);
  });
});
