// Preloaded into the Prism process (node --require <this file>): its HTTP server keeps idle
// keep-alive connections open for 65 s, as agentplane's server does, instead of Node's 5 s.
// Why: a test's fetch (undici) pools connections and stops reusing one only when its own idle
// timer fires; on a loaded machine that timer fires late, so the test sends a request on a
// connection at the very moment Prism closes it as idle ("fetch failed: other side closed",
// never retried for a POST). With the server's idle timeout well past any client's, a pooled
// connection is never closed under a request. Prism has no option for it; CommonJS, as Prism is.
const http = require('node:http');

const IDLE_MS = 65_000;
const createServer = http.createServer;
http.createServer = function (...args) {
  const server = createServer.apply(this, args);
  server.keepAliveTimeout = IDLE_MS;
  return server;
};
