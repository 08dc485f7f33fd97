// Measures reading graph schemas from TypeScript (staticSchemas.ts) as CPU time — user +
// system of this process and its schema worker — since wall time on a shared machine says
// little. Cold: remove node_modules/.cache/agentplane/schemas first. WARM=1 starts the reading
// as the server does at start (one Program for all graphs). Writes the schemas to out.json.
// usage: npx tsx scripts/measure-static-schemas.ts out.json path/to/graph.ts:export ...
import fs from 'node:fs';
import path from 'node:path';
const { staticSchemas, warmStaticSchemas } = await import('../src/adapters/run-workers/staticSchemas.ts');
const [out, ...graphs] = process.argv.slice(2);
const results: Record<string, unknown> = {};
if (process.env.WARM) warmStaticSchemas(graphs.map((g) => ({ source: path.resolve(g.split(':')[0]), exportName: g.split(':')[1] })));
const t0 = process.cpuUsage();
const w0 = performance.now();
for (const g of graphs) {
  const [file, exp] = g.split(':');
  const c = process.cpuUsage();
  const w = performance.now();
  results[g] = await staticSchemas(path.resolve(file), exp);
  const d = process.cpuUsage(c);
  console.log(g, 'cpu', ((d.user + d.system) / 1e6).toFixed(2), 's wall', ((performance.now() - w) / 1e3).toFixed(2));
}
const d = process.cpuUsage(t0);
console.log('TOTAL cpu', ((d.user + d.system) / 1e6).toFixed(2), 's wall', ((performance.now() - w0) / 1e3).toFixed(2));
fs.writeFileSync(out, JSON.stringify(results, null, 1));
process.exit(0);
