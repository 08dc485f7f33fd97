// The figures of turns side by side (fanoutAlternate.ts, fanoutPeer.ts): each row the median of a contender's turns, then every turn's figure.
import type { FanoutFigure } from './fanout.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ROWS: [string, (f: FanoutFigure) => number][] = [
  ['/ok p99 idle (ms)', (f) => f.idle.okP99Ms],
  ['/ok p99 runs alone (ms)', (f) => f.runsAlone.okP99Ms],
  ['/ok p99 with subscribers (ms)', (f) => f.loaded.okP99Ms],
  ['/ok p99 ÷ idle', (f) => f.okP99Ratio],
  ['ceiling /ok p99 under the same subscribers (ms)', (f) => f.ceiling?.loaded.okP99Ms ?? NaN],
  ['/ok p99 ÷ the ceiling', (f) => f.okP99VsCeiling ?? NaN],
  ['ceiling delivery p99 (ms)', (f) => f.ceiling?.delivery?.p99Ms ?? NaN],
  ['first event with subscribers (ms)', (f) => f.loaded.firstEventMs],
  ['delivery p50 (ms)', (f) => f.delivery?.p50Ms ?? NaN],
  ['delivery p99 (ms)', (f) => f.delivery?.p99Ms ?? NaN],
  ['runs under subscribers', (f) => f.runs],
  ['events received', (f) => f.eventsReceived],
  ['events lost', (f) => f.lostEvents ?? NaN],
  ['subscribers failed', (f) => f.failedSubscribers],
];

/** The table's lines: a row a figure (those no turn has left out), a column a contender. */
export function fanoutTable(figures: Map<string, FanoutFigure[]>): string[] {
  const names = [...figures.keys()];
  const lines = [`| figure | ${names.join(' | ')} |`, `|---|${names.map(() => '--:').join('|')}|`];
  for (const [label, of] of ROWS) {
    const columns = names.map((name) => figures.get(name)!.map(of));
    if (columns.every((xs) => xs.every(Number.isNaN))) continue;
    lines.push(`| ${label} | ${columns.map((xs) => `${median(xs)} (${xs.join(', ')})`).join(' | ')} |`);
  }
  return lines;
}
