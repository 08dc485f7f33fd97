// A deployment's known secret values (its secrets and the credentials in its repo_url) are
// removed from everything captured from its processes before anyone reads it: build and
// server logs, status_message, and so the control plane's own log lines about it.
import type { DeploymentRecord } from './records.ts';
import { repoUrlCredentials } from './repoUrl.ts';
import { SECRET_MASK } from './secretMask.ts';

/** Shorter values would blank out ordinary words (`true`, `dev`) all over the logs. */
export const MIN_REDACTED_LENGTH = 4;

export type Redact = (text: string) => string;

export function secretValues(deployment: Pick<DeploymentRecord, 'secrets' | 'source_config'>): string[] {
  return [...deployment.secrets.map((s) => s.value), ...repoUrlCredentials(deployment.source_config.repo_url)];
}

/** Replaces every value (and its JSON-escaped form, as in a JSON log line) with the mask. */
export function redactor(values: readonly string[]): Redact {
  const forms = new Set<string>();
  for (const value of values) {
    if (value.length < MIN_REDACTED_LENGTH) continue;
    forms.add(value);
    forms.add(JSON.stringify(value).slice(1, -1));
  }
  // longest first: a value containing another is masked whole
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const form of ordered) if (out.includes(form)) out = out.split(form).join(SECRET_MASK);
    return out;
  };
}
