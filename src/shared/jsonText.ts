// Data that arrives as its JSON text: a run worker's stream events (workers/runWorker.ts).
// Posting an object graph to another thread clones it object by object (~1 µs an object: a
// `values` event of a long thread is hundreds of messages, every step); posting its text
// copies one string. Whoever writes the event out (SSE, the PostgreSQL event log) writes the
// text as it is; whoever reads into it gets the parsed value, made once, on first read.

/** String.prototype.isWellFormed (Node 20; not in this project's ES library types). */
type WellFormedCheck = string & { isWellFormed(): boolean };

export class JsonText {
  private parsed?: { value: unknown };
  /** The text, while it is held as a string (until pack()). */
  private held: string | undefined;
  /** Once packed: the text's bytes, off V8's heap, and how they decode. */
  private packed?: { bytes: Buffer; encoding: 'latin1' | 'utf8' };
  /** The text's length (String.length), known without reading it. */
  readonly length: number;

  constructor(text: string) {
    this.held = text;
    this.length = text.length;
  }

  /**
   * The JSON text. Once packed, decoded at each read and not kept: a reader that needs it for
   * long holds its own copy (a WeakRef would not let one shared copy die young: V8's scavenges
   * keep a WeakRef's target alive, only a full collection clears it).
   */
  get text(): string {
    return this.held ?? this.packed!.bytes.toString(this.packed!.encoding);
  }

  /** Whether the text is held as bytes (pack()). */
  get isPacked(): boolean {
    return this.packed !== undefined;
  }

  /**
   * Holds the text as bytes, off V8's heap, and lets its string go (issue 87: kept by a finished
   * run's event log for seconds, a run's event texts were copied twice by the main thread's
   * scavenges, then by its full collections). A text that is not well-formed UTF-16 (a lone
   * surrogate, which UTF-8 cannot carry) stays a string; so does a parsed value.
   */
  pack(): void {
    const text = this.held;
    if (text === undefined) return;
    const bytes = Buffer.byteLength(text, 'utf8');
    // one byte a character: every one is ASCII, and latin1 decodes them fastest
    if (bytes === text.length) this.packed = { bytes: Buffer.from(text, 'latin1'), encoding: 'latin1' };
    else if ((text as WellFormedCheck).isWellFormed()) this.packed = { bytes: Buffer.from(text, 'utf8'), encoding: 'utf8' };
    else return;
    this.held = undefined;
  }

  /**
   * The text's UTF-8 bytes, when it is held as bytes (packed now if it was not): a writer
   * copies them into what it sends instead of decoding the text and encoding it again (issue
   * 87: a protocol event's frames were made of its decoded text and kept with the event).
   * Undefined for a text UTF-8 cannot carry (a lone surrogate). Not to be changed.
   */
  get utf8(): Buffer | undefined {
    this.pack();
    // latin1 is chosen only when every character is ASCII: those bytes are UTF-8's
    return this.packed?.bytes;
  }

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
