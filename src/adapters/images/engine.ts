// The container engine's command line (podman or docker), as the image builder and the
// container deployer call it: one command at a time, its output in lines, a time limit, and a
// failure that names the command and keeps its last lines. Podman gets the project's
// containers.conf (CONTAINERS_CONF) unless the operator chose one: the distribution defaults
// (systemd cgroups, crun) fail on machines without systemd.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseImageReference, storedUnder } from '../../domain/control-plane/imageReference.ts';

export type EngineName = 'podman' | 'docker';

export interface EngineOptions {
  name: EngineName;
  /** The environment the CLI runs with (the control plane's own settings removed by the caller). */
  env: Record<string, string | undefined>;
  /** The containers.conf podman uses when the environment names none. */
  containersConf: string | null;
}

export interface RunOptions {
  /** Each line of output (stdout and stderr), as it comes. */
  onLine?: (line: string) => void;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export class EngineError extends Error {
  constructor(
    message: string,
    /** The last lines of the command's output. */
    readonly output: string,
    readonly exitCode: number | null,
  ) {
    super(output ? `${message}\n${output}` : message);
  }
}

const TAIL_LINES = 15;

/** How many times a build is tried when what it was using is removed under it. */
const BUILD_ATTEMPTS = 3;
/** How many times a listing is tried while images it meets are being removed, and the pause after the first (longer each time: 3 s in all). */
const LIST_ATTEMPTS = 6;
const LIST_PAUSE_MS = 200;
/** What podman says when a layer or an intermediate image a build took from its cache has since been removed. */
const VANISHED_DURING_BUILD = /\b(?:layer|image) not known\b/;
/**
 * What podman says when a build's working container was removed under it: an `rmi --force` of
 * an image whose parent is that container's base removes the container too. Before the commit
 * the build fails at its next step; after it, only the container's cleanup fails.
 */
const CONTAINER_VANISHED = /\bidentifier is not a container\b|\bcontainer not known\b/;
/** How podman names the image a build committed (`--> <short id>`), then the name it stored it under. */
const COMMITTED = /^--> ([0-9a-f]{11,64})$/;
const TAGGED = /^Successfully tagged (\S+)$/;

/** Calls `onLine` with each line of a child's output as it comes (the last one at its end), `onChunk` with the raw text. */
export function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void, onChunk?: (chunk: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    onChunk?.(chunk);
    pending += chunk;
    const lines = pending.split(/\r?\n/);
    pending = lines.pop() ?? '';
    lines.forEach((l) => onLine(l));
  });
  stream.on('end', () => pending && onLine(pending));
}

export class ContainerEngine {
  readonly name: EngineName;
  private readonly env: Record<string, string>;

  constructor(options: EngineOptions) {
    this.name = options.name;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.env)) if (v !== undefined) env[k] = v;
    if (options.name === 'podman' && !env.CONTAINERS_CONF && options.containersConf) env.CONTAINERS_CONF = options.containersConf;
    this.env = env;
  }

  /** The environment the engine's CLI runs with (for callers that spawn it themselves: a log follower). */
  get environment(): Record<string, string> {
    return { ...this.env };
  }

  /** Runs `<engine> args…`; resolves with its standard output, rejects with an EngineError. */
  run(args: string[], options: RunOptions = {}): Promise<string> {
    return new Promise((resolve, reject) => {
      // always the control plane's own environment: nothing of a tenant's (deployer/containerSecrets.ts)
      const child = spawn(this.name, args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      const tail: string[] = [];
      const line = (text: string) => {
        tail.push(text);
        if (tail.length > TAIL_LINES) tail.shift();
        options.onLine?.(text);
      };
      eachLine(child.stdout, line, (chunk) => (stdout += chunk));
      eachLine(child.stderr, line);
      let why: string | null = null;
      const kill = (reason: string) => {
        why = reason;
        child.kill('SIGKILL');
      };
      const timer = options.timeoutMs ? setTimeout(() => kill(`timed out after ${Math.round(options.timeoutMs! / 1000)} s`), options.timeoutMs) : null;
      const onAbort = () => kill('was stopped');
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => {
        if (timer) clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const shown = `${this.name} ${args.slice(0, 2).join(' ')}`;
      child.on('error', (err) => {
        done();
        reject(new EngineError(`could not run ${this.name}: ${err.message} (is it installed?)`, '', null));
      });
      child.on('close', (code) => {
        done();
        if (code === 0 && !why) resolve(stdout);
        else reject(new EngineError(`"${shown}" ${why ?? `exited with code ${code}`}.`, tail.join('\n'), code));
      });
    });
  }

  /**
   * Runs `<engine> build args…`, again (at most BUILD_ATTEMPTS times in all) when it failed
   * because an image or layer it was using was removed under it. Removing an image also
   * removes its intermediate parents that no other image holds; a build that has just taken
   * one of them from the cache (the `USER root` step every project's image shares) then fails
   * "image not known" / "layer not known" at its next step. Another deployment's delete,
   * another control plane on the same storage or an operator's prune can all do that, and the
   * same build a moment later succeeds (the steps are made afresh). The same removal with
   * `--force` takes the build's working container with it: once the image is committed and
   * tagged, only its cleanup fails, and the image stands (the CI failure of 2026-12-07).
   */
  async build(args: string[], options: RunOptions = {}): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run(['build', ...args], options);
      } catch (err) {
        if (!(err instanceof EngineError)) throw err;
        if (await this.committedBeforeFailing(err)) return '';
        const vanished = VANISHED_DURING_BUILD.exec(err.output) ?? CONTAINER_VANISHED.exec(err.output);
        if (!vanished || attempt >= BUILD_ATTEMPTS || options.signal?.aborted) throw err;
        options.onLine?.(
          `An image or layer this build was using was removed while it ran (${vanished[0]}); building again (attempt ${attempt + 1} of ${BUILD_ATTEMPTS})`,
        );
      }
    }
  }

  /** Whether a build that failed because its working container vanished had committed its image, which is stored under its name. */
  private async committedBeforeFailing(err: EngineError): Promise<boolean> {
    const lines = err.output.split('\n');
    const tagged = lines.findLastIndex((line) => TAGGED.test(line));
    if (tagged < 0 || !lines.slice(tagged + 1).some((line) => CONTAINER_VANISHED.test(line))) return false;
    const name = TAGGED.exec(lines[tagged])![1];
    const shortId = lines
      .slice(0, tagged)
      .map((line) => COMMITTED.exec(line)?.[1])
      .findLast(Boolean);
    return shortId !== undefined && ((await this.imageId(name))?.replace(/^sha256:/, '').startsWith(shortId) ?? false);
  }

  /**
   * The ids of the images a filter matches (`images --quiet`), asked again when the listing
   * failed because an image vanished while it was read: podman reads every image it lists,
   * and one removed meanwhile (another deployment's delete, a build's cleanup) fails the whole
   * listing "image not known" (CI of 2026-11-27: a deployment's delete beside a build test).
   * A removal of several images takes a while, and three attempts in a row all met the same
   * one (CI of 2026-11-29, container tests in parallel): so each attempt waits a little longer.
   */
  async listImages(filters: string[], options: { all?: boolean } = {}): Promise<string[]> {
    const args = ['images', ...(options.all ? ['--all'] : []), '--quiet', ...filters.flatMap((f) => ['--filter', f])];
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.run(args)).split('\n').filter(Boolean);
      } catch (err) {
        const vanished = err instanceof EngineError && VANISHED_DURING_BUILD.test(err.output);
        if (!vanished || attempt >= LIST_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, LIST_PAUSE_MS * attempt));
      }
    }
  }

  /** Whether an image of this name or id is in the engine's local storage. */
  async hasImage(ref: string): Promise<boolean> {
    return (await this.imageId(ref)) !== null;
  }

  /**
   * The full id of the image stored under the name `ref` (a full reference: its repository and
   * tag, or its repository and digest), or null when none is. An engine's own lookup finds a
   * digested reference by the digest alone, whatever repository it names (imageReference.ts,
   * storedUnder), so the names the image found is stored under are checked.
   */
  async namedImageId(ref: string): Promise<string | null> {
    if (!parseImageReference(ref).ok) return null;
    try {
      return namedImageIdOf(ref, await this.run(['image', 'inspect', '--format', NAMES_FORMAT, '--', ref]));
    } catch (err) {
      if (err instanceof EngineError && err.exitCode !== null) return null;
      throw err;
    }
  }

  /** The full id of the image `ref` names in the engine's local storage, or null when it has none. */
  async imageId(ref: string): Promise<string | null> {
    try {
      // after "--": a reference is never read as an option
      return (await this.run(['image', 'inspect', '--format', '{{.Id}}', '--', ref])).trim();
    } catch (err) {
      if (err instanceof EngineError && err.exitCode !== null) return null;
      throw err;
    }
  }
}

/** `image inspect --format` of an image's id and the names it is stored under (podman and docker alike). */
export const NAMES_FORMAT = '{{.Id}}\t{{json .RepoTags}}\t{{json .RepoDigests}}';

/** The id in an `image inspect --format NAMES_FORMAT` answer for `ref`, when the image is stored under that name; else null. */
export function namedImageIdOf(ref: string, inspected: string): string | null {
  const parsed = parseImageReference(ref);
  if (!parsed.ok) return null;
  const [id, tags, digests] = inspected.trim().split('\t');
  const names = (text: string | undefined): string[] => {
    const list: unknown = JSON.parse(text || 'null');
    return Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : [];
  };
  return id && storedUnder(parsed.ref, names(tags), names(digests)) ? id : null;
}

/** The engine named, else the first of podman and docker found on PATH; null: neither. */
export function findEngine(env: Record<string, string | undefined>): EngineName | null {
  for (const name of ['podman', 'docker'] as const) {
    for (const dir of (env.PATH ?? '').split(':')) {
      try {
        fs.accessSync(path.join(dir, name), fs.constants.X_OK);
        return name;
      } catch {
        // not here
      }
    }
  }
  return null;
}

// The control plane's own settings must not reach the container engine's CLI (a container
// gets only the deployment's secrets, by name).
const OWN_SETTINGS = /^(AGENTPLANE_|DATABASE_URL$|DATA_DIR$|PORT$|HOST$|LANGGRAPH_API_URL$|npm_)/;

/** The environment without agentplane's own settings. */
export function withoutOwnSettings(base: Record<string, string | undefined>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !OWN_SETTINGS.test(k)) env[k] = v;
  return env;
}
