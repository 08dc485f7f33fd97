// Image references as a hostile tenant writes them (issue 83): an option for the engine's CLI,
// a bare image id, a prefix of one (podman resolved 4 hex characters to another tenant's build),
// a digest alone; each refused. Names that follow the OCI distribution grammar come back in
// full, so an engine is never handed a short name it could resolve on its own.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseImageReference, storedUnder } from '../../../src/domain/control-plane/imageReference.ts';

const ID = 'f3a1c9d27b4e8a6f0c2d5e7b9a1c3e5f7a9b1d3f5e7c9a1b3d5f7e9a1c3b5d7f';
const full = (text: string) => {
  const parsed = parseImageReference(text);
  assert.ok(parsed.ok, `${text}: ${!parsed.ok && parsed.msg}`);
  return parsed.ref.full;
};
const refused = (text: string) => {
  const parsed = parseImageReference(text);
  assert.ok(!parsed.ok, `${text} was read as ${parsed.ok && parsed.ref.full}`);
  return parsed.msg;
};

describe('image references', () => {
  it('refuse what an engine would read as an option', () => {
    for (const text of ['--help', '-v', '--authfile=/etc/shadow', '-', '--rm=false']) assert.match(refused(text), /starts with "-"/, text);
  });

  it('refuse image ids, prefixes of one and digests alone', () => {
    for (const text of [
      ID,
      ID.slice(0, 4),
      ID.slice(0, 12),
      'BEEF',
      `sha256:${ID}`,
      `sha256:${ID.slice(0, 6)}`,
      `SHA256:${ID}`,
      `@sha256:${ID}`,
      `sha512:${ID}${ID}`,
    ])
      assert.match(refused(text), /image id|digest alone|grammar/, text);
    // a 64-hex repository is an id, wherever it sits
    assert.match(refused(`registry.example/${ID}:1`), /image id/);
  });

  it('refuse a digest an engine would not verify: an unknown algorithm, a wrong length, capitals (go-digest algorithm.go)', () => {
    for (const text of [
      `node@sha256:${'a'.repeat(63)}`,
      `node@sha256:${'a'.repeat(65)}`,
      `node@sha256:${'a'.repeat(100_000)}`,
      `node@sha256:${ID.toUpperCase()}`,
      `node@SHA256:${ID}`,
      `node@md5:${'a'.repeat(32)}`,
      `node@sha512:${ID}`,
      `node@constructor:${ID}`,
    ])
      assert.match(refused(text), /digest/, text.slice(0, 80));
    assert.equal(full(`node@sha512:${ID}${ID}`), `docker.io/library/node@sha512:${ID}${ID}`);
    assert.equal(full(`node@sha384:${ID}${ID.slice(0, 32)}`), `docker.io/library/node@sha384:${ID}${ID.slice(0, 32)}`);
  });

  it('refuse what the grammar does not allow', () => {
    for (const text of [
      '',
      ' node:1',
      'node:1 ',
      'Node:1',
      'acme/Agent:1',
      'a//b',
      'node:',
      'node:-x',
      'node@sha256:abc',
      'ACME/agent:1',
      'node:1\n--privileged',
    ])
      refused(text);
    assert.match(refused(`registry.example/${'a'.repeat(260)}`), /255/);
  });

  it('write names in full: docker.io and library/ spelt out, a registry in lower case, :latest when nothing pins it', () => {
    assert.equal(full('node'), 'docker.io/library/node:latest');
    assert.equal(full('node:22'), 'docker.io/library/node:22');
    assert.equal(full('beef:1'), 'docker.io/library/beef:1');
    assert.equal(full('acme/agent:1'), 'docker.io/acme/agent:1');
    assert.equal(full('index.docker.io/acme/agent:1'), 'docker.io/acme/agent:1');
    assert.equal(full('GHCR.IO/acme/agent:1'), 'ghcr.io/acme/agent:1');
    assert.equal(full('localhost/agent'), 'localhost/agent:latest');
    assert.equal(full('LocalHost/agent:2'), 'localhost/agent:2');
    assert.equal(full('127.0.0.1:5000/a/b-c__d.e:v1.2'), '127.0.0.1:5000/a/b-c__d.e:v1.2');
    assert.equal(full(`registry.example/agent@sha256:${ID}`), `registry.example/agent@sha256:${ID}`);
    assert.equal(full(`registry.example/agent:1@sha256:${ID}`), `registry.example/agent:1@sha256:${ID}`);
    assert.equal(full('[::1]:5000/agent:1'), '[::1]:5000/agent:1');
  });
});

describe('an image found is the one named only when stored under that name (podman finds a digest in any repository)', () => {
  const D = `sha256:${ID}`;
  const ref = (text: string) => {
    const parsed = parseImageReference(text);
    assert.ok(parsed.ok);
    return parsed.ref;
  };
  it("a digest in another repository is another tenant's image, whatever podman resolved it to", () => {
    assert.equal(storedUnder(ref(`quay.io/acme/agent@${D}`), ['localhost/agentplane-deployment-b:r1'], [`localhost/agentplane-deployment-b@${D}`]), false);
    assert.equal(storedUnder(ref(`docker.io/library/node@${D}`), ['docker.io/library/node:22'], [`quay.io/library/node@${D}`]), false);
    // the same digest is not enough, nor the same repository with another digest
    assert.equal(storedUnder(ref(`quay.io/acme/agent@${D}`), [], [`quay.io/acme/agent@sha256:${'0'.repeat(64)}`]), false);
  });
  it('the same repository and digest, in any spelling an engine writes it (docker writes short names)', () => {
    assert.equal(storedUnder(ref(`quay.io/acme/agent@${D}`), [], [`quay.io/acme/agent@${D}`]), true);
    assert.equal(storedUnder(ref(`node:22@${D}`), [], [`node@${D}`]), true);
    assert.equal(storedUnder(ref(`docker.io/library/node@${D}`), [], [`index.docker.io/library/node@${D}`]), true);
    assert.equal(storedUnder(ref(`Quay.IO/acme/agent@${D}`), [], [`quay.io/acme/agent@${D}`]), true);
  });
  it('a tag: the same repository and tag, `latest` when none', () => {
    assert.equal(storedUnder(ref('node:22'), ['node:22'], []), true);
    assert.equal(storedUnder(ref('docker.io/library/node'), ['docker.io/library/node:latest'], []), true);
    assert.equal(storedUnder(ref('node:22'), ['localhost/node:22', 'docker.io/library/node:20'], []), false);
    assert.equal(storedUnder(ref('localhost/node:22'), ['docker.io/library/node:22'], []), false);
    assert.equal(storedUnder(ref('node:22'), ['<none>:<none>'], ['<none>@<none>']), false);
  });
});
