// An image reference as the OCI distribution grammar writes it (github.com/distribution/reference,
// reference.go: reference := name [":" tag] ["@" digest], name := [domain "/"] path), read into
// its parts and written back in full: `node:22` is `docker.io/library/node:22`. Written here: no
// maintained parser of the grammar is among the dependencies, and the rules need the parts.
// A container engine reads more than the grammar: podman takes a bare image id, and a prefix of
// one (4 hex characters were enough), before any name, and a word starting with "-" as an option.
// So a reference that is not a name is refused here, whatever an engine would make of it, and
// the engines are only ever handed the full form (never a short name podman could resolve to an
// id, or to an image of its local storage, first).

/** A reference read by the grammar, and its full form (domain and path spelt out). */
export interface ImageReference {
  /** The registry: `docker.io` when the reference names none, `localhost` for this machine's storage. */
  domain: string;
  /** The repository inside it: `library/node`. */
  path: string;
  tag: string | null;
  digest: string | null;
  /** `domain/path[:tag][@digest]`, `:latest` when neither was given: what an engine is handed. */
  full: string;
}

// the grammar's productions (reference.go), each anchored where it is used
const ALPHANUMERIC = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALPHANUMERIC}(?:${SEPARATOR}${ALPHANUMERIC})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const IPV6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|${IPV6})(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}';
const REFERENCE = new RegExp(`^(?:(${DOMAIN})/)?(${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);
/** The longest name the grammar allows (domain and path). */
const NAME_MAX = 255;
const HEX = /^[0-9a-f]+$/;
/**
 * The digests an engine verifies, each its exact lower-case hex length (opencontainers/go-digest,
 * algorithm.go: anchoredEncodedRegexps). The grammar's own `[0-9a-fA-F]{32,}` let through a digest
 * podman refuses at deploy, an unknown algorithm, and 100 KB of hex stored with a revision.
 */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** Why `text` is not an image reference agentplane runs, or its parts. */
export function parseImageReference(text: string): { ok: true; ref: ImageReference } | { ok: false; msg: string } {
  const refuse = (why: string) => ({ ok: false as const, msg: `${JSON.stringify(text.slice(0, 300))} is not an image reference agentplane runs: ${why}` });
  if (text.startsWith('-')) return refuse('it starts with "-" (a container engine would read an option).');
  // `sha256:<hex>` also reads as the repository "sha256" with a tag: it is an id all the same
  if (/^@|^(?:sha256|sha384|sha512):|^[0-9a-fA-F]{4,}$/i.test(text))
    return refuse('an image id, a prefix of one or a digest alone names no repository; name the image as [registry/]repository[:tag][@digest].');
  const found = REFERENCE.exec(text);
  if (!found)
    return refuse('it does not follow the grammar [registry/]repository[:tag][@digest] (lower-case repository, a tag of letters, digits, "_", "." or "-").');
  const [, given, path, tag, digest] = found as unknown as [string, string | undefined, string, string | undefined, string | undefined];
  if (digest !== undefined) {
    const [algorithm, hex] = digest.split(':') as [string, string];
    const length = Object.hasOwn(DIGEST_HEX_LENGTH, algorithm) ? DIGEST_HEX_LENGTH[algorithm] : undefined;
    if (length === undefined) return refuse(`the digest's algorithm is not one an engine verifies (${Object.keys(DIGEST_HEX_LENGTH).join(', ')}).`);
    if (hex.length !== length || !HEX.test(hex)) return refuse(`a ${algorithm} digest is ${length} lower-case hexadecimal characters.`);
  }
  // distribution's own split: a first component with a "." or ":" (or `localhost`) is a registry
  let domain = given;
  let repository = path;
  if (domain !== undefined && !/[.:]/.test(domain) && domain.toLowerCase() !== 'localhost') {
    // lower-case letters only and no dot: a path component the regular expression took for a domain
    if (!new RegExp(`^${PATH_COMPONENT}$`).test(domain)) return refuse('a registry name needs a "." or a port (or is localhost).');
    repository = `${domain}/${path}`;
    domain = undefined;
  }
  if (domain === undefined) {
    domain = 'docker.io';
    if (!repository.includes('/')) repository = `library/${repository}`;
  }
  // a registry's name is a host name: any case is the same registry
  domain = domain.toLowerCase();
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (domain.length + 1 + repository.length > NAME_MAX) return refuse(`a name holds at most ${NAME_MAX} characters.`);
  if (repository.split('/').some((part) => part.length === 64 && HEX.test(part))) return refuse('a 64-character hexadecimal repository name is an image id.');
  const full = `${domain}/${repository}${tag ? `:${tag}` : digest ? '' : ':latest'}${digest ? `@${digest}` : ''}`;
  return { ok: true, ref: { domain, path: repository, tag: tag ?? null, digest: digest ?? null, full } };
}

/**
 * Whether an image stored under `tags` and `digests` (an engine's RepoTags and RepoDigests, in
 * any spelling an engine writes them) is the image `ref` names: by its digest in that same
 * repository when it has one, else by its tag. An engine finds a digested reference by the
 * digest alone (podman 4.3: `quay.io/x/y@sha256:<d>` is any local image of digest d, another
 * tenant's build or private pull included), so what it found is checked against the name.
 */
export function storedUnder(ref: ImageReference, tags: readonly string[], digests: readonly string[]): boolean {
  const same = (name: string, pick: (other: ImageReference) => boolean) => {
    const parsed = parseImageReference(name);
    return parsed.ok && parsed.ref.domain === ref.domain && parsed.ref.path === ref.path && pick(parsed.ref);
  };
  if (ref.digest !== null) return digests.some((name) => same(name, (other) => other.digest === ref.digest));
  return tags.some((name) => same(name, (other) => other.tag === (ref.tag ?? 'latest')));
}
