// Which of a recording's last runs the PostgreSQL ceiling replays (issue 87). A replica now and
// then sends one more statement inside a run's window that is not of the run (a recording once
// caught an extra statement among the execution's, and its replay waited until it timed out).
// So the last few runs are each split, and the one replayed is the latest whose statements, as
// texts in order, are those most of them sent: one odd run is left out, and said.

/** The index of the latest item whose signature is the most common one (ties: the latest of them wins). */
export function typicalIndex(signatures: readonly string[]): number {
  if (!signatures.length) throw new Error('typicalIndex: no runs recorded');
  const counts = new Map<string, number>();
  for (const s of signatures) counts.set(s, (counts.get(s) ?? 0) + 1);
  let best = signatures.length - 1;
  for (let i = signatures.length - 1; i >= 0; i -= 1) if (counts.get(signatures[i])! > counts.get(signatures[best])!) best = i;
  return best;
}

/** The statements of a run as one comparable text: each statement's text, in order. */
export function signatureOf(statements: readonly { text: string }[]): string {
  return statements.map((s) => s.text.replace(/\s+/g, ' ').trim()).join('\n');
}

/** The statements `odd` has that `typical` has not (as texts), to say what a left-out run sent. */
export function extraStatements(odd: readonly { text: string }[], typical: readonly { text: string }[]): string[] {
  const left = new Map<string, number>();
  for (const s of typical) left.set(signatureOf([s]), (left.get(signatureOf([s])) ?? 0) + 1);
  const extra: string[] = [];
  for (const s of odd) {
    const key = signatureOf([s]);
    const n = left.get(key) ?? 0;
    if (n > 0) left.set(key, n - 1);
    else extra.push(key);
  }
  return extra;
}
