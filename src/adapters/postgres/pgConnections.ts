// Connections to PostgreSQL that survive the database going away. node-postgres emits an
// 'error' event on a client whose connection dies (a restart: "terminating connection due
// to administrator command", then "Connection terminated unexpectedly"); a pool listens
// only on the clients it holds idle, so a client checked out at that moment — a transaction,
// a held advisory lock — has no listener, and Node ends the process on an unhandled
// 'error' event. Every connection is made here, with a listener for its whole life: the
// failure reaches whoever is using the connection as its query's rejection (or, for a
// dedicated session, as its 'end'), never the process.
//
// A failure that means "the database cannot be reached now" becomes the store's
// `unavailable` refusal (errors.ts), answered 503 with Retry-After like an I/O error of the
// embedded store; any other database error (a bug, a constraint) stays what it is.
import pg from 'pg';
import { StoreUnavailableError, StoreWriteError } from '../../shared/storeErrors.ts';

/** A connection attempt to an unreachable host gives up after this long (node-postgres waits for ever by default). */
const CONNECT_TIMEOUT_MS = 10_000;

/** A pool whose every client, idle or checked out, handles its own connection's failure. */
export function openPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // an idle client dropped by the server: the pool discards it and connects anew when needed
  // (the next query that cannot reach the database says so, as a 503)
  pool.on('error', () => {});
  // a checked-out client: its query in flight (if any) rejects with the error, and a client
  // that is no longer queryable is discarded when released
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** A connection of its own (a lease, a LISTEN session), with a listener from before it connects. */
export function dedicatedClient(url: string): pg.Client {
  const client = new pg.Client({ connectionString: url, keepAlive: true, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  return client;
}

/** SQLSTATE classes and codes that mean the server is going, gone, or not taking connections. */
const UNAVAILABLE_CLASSES = ['08']; // connection exception
const UNAVAILABLE_CODES = new Set(['57P01', '57P02', '57P03', '53300', '53100', '58030']);
/** Socket errors and node-postgres's own words for a connection that ended or never began. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const DRIVER_MESSAGES = [/^Connection terminated/, /not queryable/, /timeout exceeded when trying to connect/i, /^Connection ended/];

/** Whether `error` says the database cannot be reached now (retrying later can succeed). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreWriteError) return error.failure === 'unavailable';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || SOCKET_CODES.has(code) || UNAVAILABLE_CLASSES.includes(code.slice(0, 2)))) return true;
  if (DRIVER_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  // AggregateError from a host with several addresses, each refused
  return error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner));
}

/** `error` as the store's `unavailable` refusal when the database cannot be reached; else unchanged. */
export function asStoreFailure(error: unknown): unknown {
  if (!isDatabaseUnavailable(error) || error instanceof StoreWriteError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  // a commit cut off midway may or may not have happened: the detail promises nothing either way
  return new StoreUnavailableError(
    `The database cannot be reached now (${reason}). Retry later; the server log says more.`,
    typeof code === 'string' ? code : undefined,
    { cause: error },
  );
}
