// The response validators of the production reply check (writeReply.ts: a reply that does not
// fit its schema is logged). They are ~60 ms of compiling, so a server that only logs misfits
// loads them once it listens (server.ts) rather than make every start wait; a reply written
// before they arrive is checked when they do. With AGENTPLANE_VALIDATE_RESPONSES (a misfit is
// a 500) they are loaded before the server starts and every check is made at once.
import type { ValidatorTable } from './api.ts';

/** Replies kept for a check before the validators arrive; past this, replies go unchecked. */
const MAX_WAITING = 1_000;

export class ResponseValidators {
  private table: ValidatorTable | undefined;
  private waiting: ((table: ValidatorTable) => void)[] = [];

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

  /** Makes `check` with the table: now, or once it has arrived. */
  check(check: (table: ValidatorTable) => void): void {
    if (this.table) check(this.table);
    else if (this.waiting.length < MAX_WAITING) this.waiting.push(check);
  }
}
