// Credentials written into a repository URL (`https://user:token@host/…`, or a token alone
// as the user) are a secret like the deployment's `secrets`: stored as given, since the
// build needs them, and shown with the secret part masked wherever the URL is shown.
import { SECRET_MASK } from './secretMask.ts';

/** `scheme://userinfo@` at the start of a URL; scp-like `user@host:path` carries no password. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i;

/** The secret part of the URL's user information: the password, else a user name alone (a token). */
function secretPart(userinfo: string): { user: string; secret: string | null } {
  const colon = userinfo.indexOf(':');
  if (colon >= 0) return { user: userinfo.slice(0, colon), secret: userinfo.slice(colon + 1) || null };
  return { user: '', secret: userinfo || null };
}

/** The URL as shown: its credentials replaced by the mask (a user name beside a password stays). */
export function maskRepoUrl(url: string): string;
export function maskRepoUrl(url: string | null): string | null;
export function maskRepoUrl(url: string | null): string | null {
  if (url === null) return null;
  const match = USERINFO.exec(url);
  if (!match) return url;
  const { user, secret } = secretPart(match[2]);
  if (secret === null) return url;
  return `${match[1]}${user ? `${user}:` : ''}${SECRET_MASK}@${url.slice(match[0].length)}`;
}

/** The credential values in the URL, as written and percent-decoded, to redact from output. */
export function repoUrlCredentials(url: string | null): string[] {
  const match = url ? USERINFO.exec(url) : null;
  const secret = match && secretPart(match[2]).secret;
  if (!secret) return [];
  let decoded = secret;
  try {
    decoded = decodeURIComponent(secret);
  } catch {
    // not valid percent-encoding: git sees it as written
  }
  return [...new Set([secret, decoded])];
}

/** A URL sent back as shown (masked) stands for the stored one. */
export function sameRepoUrl(sent: string, stored: string | null): boolean {
  return sent === stored || (stored !== null && sent === maskRepoUrl(stored));
}

/**
 * Why git must not be handed `url`, or null. `<transport>::<address>` runs git's remote helper
 * `git-remote-<transport>`: `ext::` a command of the URL's choosing, `fd::` a file descriptor of
 * the control plane (a clone that hung until the build timeout), any other a program of the
 * host. Local paths and file:// stay (a project on this machine is the documented quick start).
 */
export function repoUrlProblem(url: string | null | undefined): string | null {
  if (url == null) return null;
  const helper = /^([A-Za-z0-9][A-Za-z0-9+.-]*)::/.exec(url);
  if (helper)
    return `repo_url names git's remote helper "${helper[1]}::" (git-remote-${helper[1]}), which runs on the control plane's machine: use an https, ssh or git URL, or a path.`;
  return null;
}
