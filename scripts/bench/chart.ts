// A horizontal bar chart as plain SVG (no dependencies): one bar per scenario and server,
// grouped by scenario, on a log scale because req/s and runs/s differ by orders of magnitude.
export interface Bar {
  group: string;
  label: string;
  value: number;
  unit: string;
  series: string;
}

const COLORS: Record<string, string> = {
  agentplane: '#2563eb',
  inprocess: '#93c5fd',
  ceiling: '#9ca3af',
  prism: '#f59e0b',
  peer: '#dc2626',
  baseline: '#1e3a8a',
};
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function renderChart(bars: Bar[], title: string): string {
  const width = 900;
  const labelWidth = 300;
  const plotWidth = width - labelWidth - 110;
  const barHeight = 18;
  const groupGap = 26;
  const top = 48;
  const shown = bars.filter((b) => Number.isFinite(b.value) && b.value > 0);
  const max = Math.max(10, ...shown.map((b) => b.value));
  const decades = Math.ceil(Math.log10(max));
  const x = (v: number) => labelWidth + (Math.log10(Math.max(1, v)) / decades) * plotWidth;

  const parts: string[] = [];
  let y = top;
  let group = '';
  for (const bar of shown) {
    if (bar.group !== group) {
      group = bar.group;
      y += groupGap - 6;
      parts.push(`<text x="10" y="${y}" font-weight="bold">${esc(group)}</text>`);
      y += 6;
    }
    const color = COLORS[bar.series] ?? '#6b7280';
    const w = Math.max(1, x(bar.value) - labelWidth);
    parts.push(`<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end">${esc(bar.label)}</text>`);
    parts.push(`<rect x="${labelWidth}" y="${y}" width="${w.toFixed(1)}" height="${barHeight}" fill="${color}"/>`);
    parts.push(`<text x="${(labelWidth + w + 6).toFixed(1)}" y="${y + 13}">${esc(formatValue(bar.value))} ${esc(bar.unit)}</text>`);
    y += barHeight + 4;
  }
  const bottom = y + 10;
  const axis: string[] = [];
  for (let d = 0; d <= decades; d += 1) {
    const gx = x(10 ** d).toFixed(1);
    axis.push(`<line x1="${gx}" y1="${top}" x2="${gx}" y2="${bottom}" stroke="#e5e7eb"/>`);
    axis.push(`<text x="${gx}" y="${bottom + 16}" text-anchor="middle" fill="#6b7280">${formatValue(10 ** d)}</text>`);
  }
  const height = bottom + 30;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="24" font-size="16" font-weight="bold">${esc(title)}</text>`,
    ...axis,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

function formatValue(v: number): string {
  if (v >= 1000) return `${Math.round(v).toLocaleString('en-US')}`;
  if (v >= 10) return String(Math.round(v));
  return v.toFixed(1);
}
