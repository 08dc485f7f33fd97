// The logs of revisions reconciled by a listener: the listener sends the lines its own
// deployer wrote (reportRevisionLogs) and they are kept here, one JSON-lines file per
// revision and kind, read back like the local deployer's logs. Each batch says which line
// of the listener's log it starts at, so a batch sent again is not stored twice.
import fs from 'node:fs';
import path from 'node:path';
import type { RevisionLogLine, RevisionLogs } from '../../../generated/control-plane/types.gen.ts';
import type { LogKind } from './deployer/types.ts';
import { readLogLines, readLogPage, type LogRequest } from './deployer/revisionLogs.ts';
import type { RevisionRecord } from './records.ts';

export class RemoteRevisionLogs {
  private root: string | null = null;

  /** `root` is asked for on the first line stored or read (a server in memory makes a temporary folder then). */
  constructor(private readonly rootOf: () => string) {}

  append(revision: RevisionRecord, kind: LogKind, from: number, lines: RevisionLogLine[]): void {
    const file = this.file(revision, kind);
    const stored = readLogLines(file).length;
    // lines before `stored` arrived in an earlier batch; a gap (lines lost on the listener) is kept as is
    const fresh = from >= stored ? lines : lines.slice(stored - from);
    if (fresh.length === 0) return;
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.appendFileSync(file, fresh.map((line) => `${JSON.stringify({ t: line.timestamp, l: line.level, m: line.message })}\n`).join(''), { mode: 0o600 });
  }

  read(revision: RevisionRecord, kind: LogKind, request: LogRequest, isComplete: () => Promise<boolean>): Promise<RevisionLogs> {
    return readLogPage(this.file(revision, kind), request, isComplete);
  }

  remove(deploymentId: string): void {
    fs.rmSync(path.join(this.dir(), deploymentId), { recursive: true, force: true });
  }

  private dir(): string {
    return (this.root ??= this.rootOf());
  }

  private file(revision: RevisionRecord, kind: LogKind): string {
    return path.join(this.dir(), revision.deployment_id, `${revision.id}.${kind}.log`);
  }
}
