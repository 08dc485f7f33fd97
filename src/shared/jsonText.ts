// Data that arrives as its JSON text: a run worker's stream events (workers/runWorker.ts).
// Posting an object graph to another thread clones it object by object (~1 µs an object: a
// `values` event of a long thread is hundreds of messages, every step); posting its text
// copies one string. Whoever writes the event out (SSE, the PostgreSQL event log) writes the
// text as it is; whoever reads into it gets the parsed value, made once, on first read.

export class JsonText {
  private parsed?: { value: unknown };

  constructor(readonly text: string) {}

  /** Whether the text has been parsed (its value is then held beside it). */
  get isParsed(): boolean {
    return this.parsed !== undefined;
  }

  /** The data (parsed on first use; every reader gets the same value). */
  get value(): unknown {
    this.parsed ??= { value: JSON.parse(this.text) };
    return this.parsed.value;
  }

  /** JSON.stringify of anything holding it gives the data's JSON, as if it held the data. */
  toJSON(): unknown {
    return this.value;
  }
}

/** Event data as a value, whether it came as data or as its JSON text. */
export function dataOf(data: unknown): unknown {
  return data instanceof JsonText ? data.value : data;
}

/** Event data as JSON text (`null` for none). */
export function jsonOf(data: unknown): string {
  return data instanceof JsonText ? data.text : JSON.stringify(data ?? null);
}
