// An assistant named as people named it, wherever a page would otherwise show its id's tail
// (runs, crons, a run's page): its name, linked to its page, the id in the tooltip. Names
// are looked up once per assistant and page load, shared by every row that shows it.
import { useEffect, useState } from 'preact/hooks';
import { agent } from './api';
import { short } from './components';

/** A lookup kept for a minute: a renamed assistant shows its new name soon after. */
const KEEP_MS = 60_000;
const looked = new Map<string, { at: number; name: Promise<string | null> }>();

function nameOf(id: string): Promise<string | null> {
  const kept = looked.get(id);
  if (kept && Date.now() - kept.at < KEEP_MS) return kept.name;
  // an assistant the key may not read, or one deleted since, keeps its id
  const name = agent()
    .assistants.get(id)
    .then(
      (a) => a.name || null,
      () => null,
    );
  looked.set(id, { at: Date.now(), name });
  return name;
}

export function AssistantName({ id }: { id: string | null | undefined }) {
  const [name, setName] = useState<string | null>(null);
  useEffect(() => {
    if (!id) return;
    let shown = true;
    void nameOf(id).then((n) => shown && setName(n));
    return () => {
      shown = false;
    };
  }, [id]);
  if (!id) return <span class="muted">—</span>;
  return (
    <a href={`/dashboard/assistants/${encodeURIComponent(id)}`} title={id}>
      {name ?? <code>{short(id)}</code>}
    </a>
  );
}
