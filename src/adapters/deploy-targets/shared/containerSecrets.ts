// How a deployment's secrets reach its containers — and only them. Never through the
// environment or the command line of the engine's CLI: the control plane runs that CLI as
// itself (root, often), so a secret named PATH, LD_PRELOAD or CONTAINERS_CONF there would
// choose what the control plane runs, and a command line is readable by every user (`ps`).
// - podman: one podman secret per variable (`--secret NAME,type=env,target=VAR`), created from
//   a private file (0600) removed as soon as podman has read it. The podman secret stays while
//   the pod does (podman reads it again at each restart of the container) and goes with it.
// - docker (whose secrets need swarm): an env file of mode 0600 read by `docker run` and
//   removed after it. An env file holds one variable a line, and a line without `=` imports
//   the variable of the CLI's own environment: a value with a line break cannot go that way.
import fs from 'node:fs';
import path from 'node:path';
import type { ContainerEngine } from '../../images/engine.ts';

/** The prefix of the podman secrets of a deployment's containers. */
const secretPrefix = (deploymentId: string) => `agentplane-${deploymentId}-env-`;

export interface SecretDelivery {
  /** Arguments of `<engine> run` that give the container the variables. */
  args: string[];
  /** Removes the private files (the podman secrets stay until removeContainerSecrets). */
  done: () => void;
}

/** A private file of `dir` holding `content`, written so that no other user ever reads it. */
function privateFile(dir: string, name: string, content: string): string {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, name);
  fs.rmSync(file, { force: true });
  fs.writeFileSync(file, content, { mode: 0o600, flag: 'wx' });
  return file;
}

/** A value an env file cannot carry: why, or null. */
export function envFileProblem(name: string, value: string): string | null {
  return /[\r\n\0]/.test(value) ? `secret ${name} has a line break, which docker's env file cannot carry` : null;
}

/**
 * Makes the deployment's secrets ready for its next containers (the previous ones go first).
 * `dir` is private to the control plane (its data directory); nothing is left in it.
 */
export async function deliverSecrets(engine: ContainerEngine, deploymentId: string, secrets: Record<string, string>, dir: string): Promise<SecretDelivery> {
  const entries = Object.entries(secrets);
  if (engine.name === 'docker') {
    const problem = entries.map(([name, value]) => envFileProblem(name, value)).find(Boolean);
    if (problem) throw new Error(problem);
    if (entries.length === 0) return { args: [], done: () => undefined };
    const file = privateFile(dir, 'secrets.env', entries.map(([name, value]) => `${name}=${value}\n`).join(''));
    return { args: ['--env-file', file], done: () => fs.rmSync(file, { force: true }) };
  }
  await removeContainerSecrets(engine, deploymentId);
  const args: string[] = [];
  for (const [index, [name, value]] of entries.entries()) {
    // podman keeps no empty secret; an empty value says nothing
    if (value === '') {
      args.push('--env', `${name}=`);
      continue;
    }
    const secret = `${secretPrefix(deploymentId)}${index}`;
    const file = privateFile(dir, `${secret}.secret`, value);
    try {
      await engine.run(['secret', 'create', secret, file]);
    } finally {
      fs.rmSync(file, { force: true });
    }
    args.push('--secret', `${secret},type=env,target=${name}`);
  }
  return { args, done: () => undefined };
}

/** Removes the podman secrets of the deployment's containers (none with docker). */
export async function removeContainerSecrets(engine: ContainerEngine, deploymentId: string): Promise<void> {
  if (engine.name !== 'podman') return;
  const names = (await engine.run(['secret', 'ls', '--format', '{{.Name}}'])).split('\n').filter((n) => n.startsWith(secretPrefix(deploymentId)));
  if (names.length) await engine.run(['secret', 'rm', ...names]);
}
