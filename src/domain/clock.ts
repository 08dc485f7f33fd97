// The one clock of the domain. `nowIso` is the ISO time the agent server writes (ms, as
// upstream); `timestamp` is the control plane's: microseconds that strictly increase within
// the process. Deployments are listed newest first by creation; unique `created_at` values
// make that order total, so a look-up by id list sorts exactly like a page of the full list.

export const nowIso = (): string => new Date().toISOString();

let lastMicros = 0;

export function timestamp(): string {
  const micros = Math.max(Date.now() * 1000, lastMicros + 1);
  lastMicros = micros;
  const iso = new Date(Math.floor(micros / 1000)).toISOString();
  return `${iso.slice(0, -1)}${String(micros % 1000).padStart(3, '0')}Z`;
}
