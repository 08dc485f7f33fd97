// Preloaded into an agentplane process the PostgreSQL ceiling records (pgCeiling.ts, with
// `--import`): every statement the process sends through node-postgres — its text, prepared
// name, parameters, the connection (backend pid) it went on, when it was sent (epoch ms,
// comparable with the bench's clock) and what it answered — appended as one JSON line to
// BENCH_PG_RECORD once answered. Only for the recording server, which is never measured.
import fs from 'node:fs';
import pg from 'pg';

const file = process.env.BENCH_PG_RECORD;
if (file) {
  const send = pg.Client.prototype.query;
  const now = () => performance.timeOrigin + performance.now();
  const write = (entry) => fs.appendFileSync(file, JSON.stringify(entry) + '\n');
  pg.Client.prototype.query = function record(config, values, callback) {
    // a submittable (a cursor, a COPY) is not a statement the run path sends
    if (config && typeof config.submit === 'function') return send.apply(this, arguments);
    const text = typeof config === 'string' ? config : config.text;
    const params = typeof values === 'function' || values === undefined ? config?.values : values;
    const entry = { at: now(), pid: this.processID, text, name: config?.name, params };
    const done = (error, result) => write({ ...entry, ms: now() - entry.at, error: error ? String(error.message) : undefined, rows: result?.rows });
    if (typeof values === 'function' || typeof callback === 'function') {
      const args = [...arguments];
      const at = typeof values === 'function' ? 1 : 2;
      const reply = args[at];
      args[at] = (error, result) => {
        done(error, result);
        reply(error, result);
      };
      return send.apply(this, args);
    }
    const answer = send.apply(this, arguments);
    answer?.then?.(
      (result) => done(undefined, result),
      (error) => done(error),
    );
    return answer;
  };
}
