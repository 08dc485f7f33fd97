// The response validators of the production reply check (writeReply.ts: a reply that does not
// fit its schema is logged). They are ~60 ms of compiling, so a server that only logs misfits
// loads them once it listens (server.ts) rather than make every start wait; a reply written
// before they arrive is checked when they do. With AGENTPLANE_VALIDATE_RESPONSES (a misfit is
// a 500) they are loaded before the server starts and every check is made at once.
// Logging misfits, a server checks the first replies of each operation and status, then one
// in CHECK_EVERY: a misfit is a handler's bug and recurs with the shape that shows it, while
// checking every reply cost a created thread ~10 µs of its ~150 µs (ajv with its date-time and
// uuid formats on a fresh object), which d5486dc, checking none in production, did not pay.
import type { ValidatorTable } from '../../api.ts';
import type { OperationSpec } from '../../contract.ts';

/** Replies kept for a check before the validators arrive; past this, replies go unchecked. */
const MAX_WAITING = 1_000;
/** Every reply of an operation and status is checked until this many have been... */
export const CHECK_FIRST = 100;
/** ...then one in this many. */
export const CHECK_EVERY = 20;

export class ResponseValidators {
  private table: ValidatorTable | undefined;
  private waiting: ((table: ValidatorTable) => void)[] = [];
  /** Replies seen per operation and status (sampling). */
  private readonly seen = new Map<OperationSpec, Map<number, number>>();

  constructor(table?: ValidatorTable) {
    this.table = table;
  }

  /** The table, once loaded. */
  get loaded(): ValidatorTable | undefined {
    return this.table;
  }

  /** The validators have arrived: the checks waiting for them are made now. */
  arrive(table: ValidatorTable): void {
    this.table = table;
    const waiting = this.waiting;
    this.waiting = [];
    for (const check of waiting) check(table);
  }

  /** Whether this reply of the operation is to be checked: every one of the first CHECK_FIRST of its status, then one in CHECK_EVERY. */
  due(operation: OperationSpec, status: number): boolean {
    let byStatus = this.seen.get(operation);
    if (!byStatus) this.seen.set(operation, (byStatus = new Map()));
    const n = (byStatus.get(status) ?? 0) + 1;
    byStatus.set(status, n);
    return n <= CHECK_FIRST || n % CHECK_EVERY === 0;
  }

  /** Makes `check` with the table: now, or once it has arrived. */
  check(check: (table: ValidatorTable) => void): void {
    if (this.table) check(this.table);
    else if (this.waiting.length < MAX_WAITING) this.waiting.push(check);
  }
}
