// The logs of revisions reconciled by a listener (the port: domain/control-plane/
// remoteRevisionLogs.ts), kept in files: JSON lines per revision and kind, read back like the
// local target's logs. Each batch says which line of the listener's log it starts at, so a
// batch sent again is not stored twice.
//
// Bounded like the other targets' logs (LOG_CAP_BYTES per log): the current file is moved
// to `<file>.1` once it holds half the cap, replacing the one before, so a log keeps its
// newest half-cap to cap. A batch costs what it holds, whatever the file's size: it is
// appended, never read back, and where the listener's numbering stands is kept beside it
// (`<file>.meta`) and in memory. Nothing here blocks the request loop (no sync I/O).
import fs from 'node:fs';
import path from 'node:path';
import type { RevisionLogLine, RevisionLogs } from '../../../generated/control-plane/types.gen.ts';
import type { LogKind } from '../../domain/control-plane/deployer/types.ts';
import { LOG_CAP_BYTES, logLinesOf, pageOfLog, type LogRequest } from '../../domain/control-plane/deployer/revisionLogs.ts';
import type { RevisionRecord } from '../../domain/control-plane/records.ts';
import type { RemoteRevisionLogs } from '../../domain/control-plane/remoteRevisionLogs.ts';

/** Where a log stands; `<file>.meta` holds it across restarts. */
interface LogState {
  /** The listener's number of the next line expected (lines before it are stored or were dropped). */
  next: number;
  /** Lines dropped with earlier generations: the first line kept is line `base` for readers. */
  base: number;
  /** Lines in `<file>.1` and in the file. */
  previousLines: number;
  currentLines: number;
  /** Bytes in the file (not `.1`). */
  bytes: number;
}

/** Logs whose state is kept in memory; past that the oldest are read again from their .meta when needed. */
const STATES_KEPT = 10_000;

export class RemoteLogFiles implements RemoteRevisionLogs {
  private root: string | null = null;
  private readonly states = new Map<string, Promise<LogState>>();
  /** Per file, the append in progress: appends to one log never overlap. */
  private readonly tails = new Map<string, Promise<void>>();

  /** `root` is asked for on the first line stored or read (a server in memory makes a temporary folder then). */
  constructor(
    private readonly rootOf: () => string,
    private readonly capBytes: number = LOG_CAP_BYTES,
  ) {}

  append(revision: RevisionRecord, kind: LogKind, from: number, lines: RevisionLogLine[]): Promise<void> {
    const file = this.file(revision, kind);
    const previous = this.tails.get(file) ?? Promise.resolve();
    const done = previous.then(() => this.appendNow(file, from, lines));
    const tail = done.catch(() => undefined);
    this.tails.set(file, tail);
    void tail.then(() => {
      if (this.tails.get(file) === tail) this.tails.delete(file);
    });
    return done;
  }

  async read(revision: RevisionRecord, kind: LogKind, request: LogRequest, isComplete: () => Promise<boolean>): Promise<RevisionLogs> {
    const file = this.file(revision, kind);
    const deadline = Date.now() + (request.order === 'desc' ? 0 : (request.wait_ms ?? 0));
    for (;;) {
      const complete = await isComplete();
      const page = await this.page(file, request, complete);
      if (page.logs.length > 0 || complete || Date.now() >= deadline) return page;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, deadline - Date.now()))));
    }
  }

  async remove(deploymentId: string): Promise<void> {
    const dir = path.join(this.dir(), deploymentId);
    for (const file of this.states.keys()) if (file.startsWith(dir + path.sep)) this.states.delete(file);
    await fs.promises.rm(dir, { recursive: true, force: true });
  }

  private async appendNow(file: string, from: number, lines: RevisionLogLine[]): Promise<void> {
    const state = await this.stateOf(file);
    // lines before `next` arrived in an earlier batch; a gap (lines lost on the listener) is kept as is
    const fresh = from >= state.next ? lines : lines.slice(state.next - from);
    if (fresh.length === 0) return;
    const text = fresh.map((line) => `${JSON.stringify({ t: line.timestamp, l: line.level, m: line.message })}\n`).join('');
    if (state.bytes === 0) await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await fs.promises.appendFile(file, text, { mode: 0o600 });
    state.next = Math.max(state.next, from + lines.length);
    state.currentLines += fresh.length;
    state.bytes += Buffer.byteLength(text);
    if (state.bytes >= this.capBytes / 2) {
      // a rename, not a copy: the cost of keeping the cap does not grow with it either
      await fs.promises.rename(file, `${file}.1`);
      state.base += state.previousLines;
      state.previousLines = state.currentLines;
      state.currentLines = 0;
      state.bytes = 0;
    }
    const { next, base, previousLines, currentLines } = state;
    await fs.promises.writeFile(`${file}.meta`, JSON.stringify({ next, base, previous_lines: previousLines, current_lines: currentLines }), { mode: 0o600 });
  }

  private stateOf(file: string): Promise<LogState> {
    let state = this.states.get(file);
    if (state) {
      // most recently used last, so the oldest go first
      this.states.delete(file);
    } else {
      state = loadState(file);
      state.catch(() => this.states.delete(file));
      if (this.states.size >= STATES_KEPT) this.states.delete(this.states.keys().next().value!);
    }
    this.states.set(file, state);
    return state;
  }

  /** A page of what is kept; cursors count from the log's first line ever, so dropping old lines moves none. */
  private async page(file: string, request: LogRequest, complete: boolean): Promise<RevisionLogs> {
    const { base } = await this.stateOf(file);
    const lines = [...(await readLines(`${file}.1`)), ...(await readLines(file))];
    const local = request.offset === undefined ? undefined : String(Math.max(0, Number(request.offset) - base));
    const page = pageOfLog(lines, { ...request, offset: local }, complete);
    return { logs: page.logs, next_offset: page.next_offset === null ? null : String(Number(page.next_offset) + base) };
  }

  private dir(): string {
    return (this.root ??= this.rootOf());
  }

  private file(revision: RevisionRecord, kind: LogKind): string {
    return path.join(this.dir(), revision.deployment_id, `${revision.id}.${kind}.log`);
  }
}

async function readLines(file: string): Promise<RevisionLogLine[]> {
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return logLinesOf(text);
}

/** A log's state from its .meta; a log kept before there was one is counted once. */
async function loadState(file: string): Promise<LogState> {
  const bytes = await fs.promises.stat(file).then(
    (s) => s.size,
    () => 0,
  );
  try {
    const meta = JSON.parse(await fs.promises.readFile(`${file}.meta`, 'utf8')) as {
      next: number;
      base: number;
      previous_lines: number;
      current_lines: number;
    };
    return { next: meta.next, base: meta.base, previousLines: meta.previous_lines, currentLines: meta.current_lines, bytes };
  } catch {
    // none yet (or unreadable): counted from the file, as a log kept before .meta files
  }
  const currentLines = bytes === 0 ? 0 : (await readLines(file)).length;
  return { next: currentLines, base: 0, previousLines: 0, currentLines, bytes };
}
