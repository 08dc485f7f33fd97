// Normalising one server's observations and listing where two of them differ, and the list
// of deliberate differences (each with its reason; docs/compatibility.md is written
// from it).
import fs from 'node:fs';

/** UUIDs, and the 32-hex ids LangGraph gives interrupts. */
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b/gi;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/;

/**
 * Ids become `<id:N>` numbered by first appearance (so "the same id again" still compares),
 * timestamps `<time>`, the server's own URL `<server>`; everything else is kept.
 */
export function normalise(value: unknown, serverUrl?: string): unknown {
  const ids = new Map<string, string>();
  const idOf = (id: string) => {
    const key = id.toLowerCase();
    if (!ids.has(key)) ids.set(key, `<id:${ids.size + 1}>`);
    return ids.get(key)!;
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (ISO_TIME.test(v)) return '<time>';
      return (serverUrl ? v.split(serverUrl).join('<server>') : v).replace(UUID, idOf);
    }
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v as object).sort()) {
        const item = (v as Record<string, unknown>)[key];
        if (item === undefined) continue; // as JSON would drop it
        out[key.replace(UUID, idOf)] = walk(item);
      }
      return out;
    }
    return v;
  };
  return walk(JSON.parse(JSON.stringify(value ?? null)));
}

export interface Difference {
  path: string;
  upstream: unknown;
  agentplane: unknown;
}

const MISSING = '(missing)';

/** Every place the two normalised observations differ, as JSON paths (`$.a.b[2]`). */
export function differences(upstream: unknown, agentplane: unknown, at = '$'): Difference[] {
  if (Object.is(upstream, agentplane)) return [];
  if (Array.isArray(upstream) && Array.isArray(agentplane)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(upstream.length, agentplane.length); i += 1) {
      out.push(...differences(i < upstream.length ? upstream[i] : MISSING, i < agentplane.length ? agentplane[i] : MISSING, `${at}[${i}]`));
    }
    return out;
  }
  if (isObject(upstream) && isObject(agentplane)) {
    const keys = new Set([...Object.keys(upstream), ...Object.keys(agentplane)]);
    return [...keys]
      .sort()
      .flatMap((key) => differences(key in upstream ? upstream[key] : MISSING, key in agentplane ? agentplane[key] : MISSING, `${at}.${key}`));
  }
  return [{ path: at, upstream, agentplane }];
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export interface DeliberateDifference {
  /** The scenario, or "*" for every scenario. */
  scenario: string;
  /** Differing JSON paths allowed (`*` matches within one key or index, `**` across any). */
  paths: string[];
  /** One line for docs/compatibility.md: what differs. */
  summary: string;
  /** Why agentplane differs on purpose. */
  reason: string;
  /**
   * Set when upstream's side of this difference depends on timing, so that some runs show it and
   * some do not (agentplane's answer being the same in both): why upstream varies. Such an entry
   * still allows only its paths, but is not required to be met by every run.
   */
  upstreamVaries?: string;
}

const here = (file: string) => new URL(file, import.meta.url);
export const DELIBERATE_FILE = here('./deliberate-differences.json');

export function readDeliberate(): DeliberateDifference[] {
  return JSON.parse(fs.readFileSync(DELIBERATE_FILE, 'utf8')).differences;
}

function globToRegExp(glob: string): RegExp {
  // NUL stands for `**` while the single `*`s are replaced
  const escaped = glob
    .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
    .replace(/\*\*/g, '\u0000')
    .replace(/\*/g, '[^.\\[\\]]*')
    // eslint-disable-next-line no-control-regex -- the NUL placed above
    .replace(/\u0000/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** The differences no deliberate entry for this scenario allows. */
export function unexplained(scenario: string, found: Difference[], deliberate: DeliberateDifference[]): Difference[] {
  return new ListedUse(deliberate).unexplained(scenario, found);
}

/**
 * Which listed differences the scenarios compared in one test file met. An entry of a compared
 * scenario that met none is stale (the difference is gone) or names paths that do not differ,
 * where it would let a new difference pass unlisted: the file fails on it (`unmet`), so the list
 * says what differs, no more and no less. Entries for every scenario (`*`) are left out, as
 * no one file compares every scenario, and so are entries whose upstream side varies by timing
 * (`upstreamVaries`), which a run may legitimately not meet.
 */
export class ListedUse {
  private readonly met = new Set<DeliberateDifference>();
  private readonly compared = new Set<string>();

  constructor(private readonly deliberate: DeliberateDifference[]) {}

  /** The differences no entry for this scenario allows, noting the entries that allowed the others. */
  unexplained(scenario: string, found: Difference[]): Difference[] {
    this.compared.add(scenario);
    const entries = this.deliberate
      .filter((d) => d.scenario === scenario || d.scenario === '*')
      .map((entry) => ({ entry, patterns: entry.paths.map(globToRegExp) }));
    return found.filter((difference) => {
      const allowing = entries.filter(({ patterns }) => patterns.some((p) => p.test(difference.path)));
      for (const { entry } of allowing) this.met.add(entry);
      return allowing.length === 0;
    });
  }

  /** The entries of the scenarios compared so far that allowed no difference. */
  unmet(): DeliberateDifference[] {
    return this.deliberate.filter((d) => d.scenario !== '*' && !d.upstreamVaries && this.compared.has(d.scenario) && !this.met.has(d));
  }
}

/** The unmet entries, one a line, for a failure's message. */
export function describeUnmet(unmet: DeliberateDifference[]): string {
  return unmet.map((d) => `  "${d.scenario}": ${d.paths.join(', ')} (${d.summary})`).join('\n');
}

/** A readable list of differences (values cut short). */
export function describe(found: Difference[], limit = Number(process.env.DIFFERENTIAL_SHOW ?? 25)): string {
  const show = (v: unknown) => {
    const text = v === MISSING ? MISSING : JSON.stringify(v);
    return text.length > 300 ? `${text.slice(0, 300)}…` : text;
  };
  const lines = found.slice(0, limit).map((d) => `  ${d.path}\n    upstream:   ${show(d.upstream)}\n    agentplane: ${show(d.agentplane)}`);
  if (found.length > limit) lines.push(`  … and ${found.length - limit} more`);
  return lines.join('\n');
}
