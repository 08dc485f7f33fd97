// Per request of GET /ok, GET /threads/{id} and POST /threads: what requestEventsPreload.cjs counts
// in a server already started with it (`NODE_OPTIONS="--require scripts/bench/requestEventsPreload.cjs"
// node bin/agentplane.js serve --memory --port P …`, key `k1`): `node scripts/bench/requestEvents.mjs
// <port> <server pid> [requests]`. One connection, requests one after another: 50 uncounted, then
// the counted ones; the counts a request are printed from the server's stderr (pass it as the
// 4th argument: the file it is written to).
import fs from 'node:fs';
import http from 'node:http';

const [port, pid] = process.argv.slice(2, 4).map(Number);
const n = Number(process.argv[4] ?? 200);
const stderrFile = process.argv[5];
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const request = (method, path, body) =>
  new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const headers = { 'x-api-key': 'k1', ...(text && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }) };
    const req = http.request({ port, host: '127.0.0.1', method, path, agent, headers }, (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (answer += chunk));
      res.on('end', () => resolve({ status: res.statusCode, answer }));
    });
    req.on('error', reject);
    req.end(text);
  });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const id = JSON.parse((await request('POST', '/threads', {})).answer).thread_id;
const routes = [
  ['GET /ok', () => request('GET', '/ok')],
  ['GET /threads/{id}', () => request('GET', `/threads/${id}`)],
  ['POST /threads', () => request('POST', '/threads', {})],
];
for (const [, send] of routes) {
  for (let i = 0; i < 50; i += 1) await send();
  await sleep(200);
  process.kill(pid, 'SIGUSR1');
  await sleep(100);
  for (let i = 0; i < n; i += 1) await send();
  await sleep(300);
  process.kill(pid, 'SIGUSR1');
  await sleep(200);
}
agent.destroy();
if (stderrFile) {
  const lines = fs
    .readFileSync(stderrFile, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('COUNTS '));
  lines.slice(-routes.length).forEach((line, i) => {
    console.log(`--- ${routes[i][0]} (a request)`);
    for (const [key, value] of JSON.parse(line.slice(7))) console.log((value / n).toFixed(2), key);
  });
}
