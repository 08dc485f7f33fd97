// The chat's input history, as Studio has one: Up in the message box brings back the messages
// sent before, newest first, Down goes forward again and back to what was being typed. The
// history is kept in the browser (localStorage), shared by every assistant, last LIMIT messages.
export const LIMIT = 50;
const KEY = 'agentplane.inputHistory';

export interface Storage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export class InputHistory {
  private entries: string[];
  /** Where Up/Down stand: entries.length is the draft being typed. */
  private position: number;
  private draft = '';

  constructor(private readonly storage: Storage | undefined) {
    this.entries = read(storage);
    this.position = this.entries.length;
  }

  /** A message sent: kept (once in a row), and the next Up starts from it. */
  push(text: string): void {
    if (text && this.entries.at(-1) !== text) this.entries = [...this.entries, text].slice(-LIMIT);
    this.position = this.entries.length;
    this.draft = '';
    try {
      this.storage?.setItem(KEY, JSON.stringify(this.entries));
    } catch {
      // storage full or refused: the history lasts as long as the page
    }
  }

  /** The message before the one shown (the typed draft kept to come back to); undefined at the oldest. */
  up(current: string): string | undefined {
    if (this.position === 0) return undefined;
    if (this.position === this.entries.length) this.draft = current;
    return this.entries[--this.position];
  }

  /** The message after the one shown, then the draft; undefined when already at the draft. */
  down(): string | undefined {
    if (this.position >= this.entries.length) return undefined;
    this.position += 1;
    return this.position === this.entries.length ? this.draft : this.entries[this.position];
  }
}

function read(storage: Storage | undefined): string[] {
  try {
    const kept = JSON.parse(storage?.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(kept) ? kept.filter((e): e is string => typeof e === 'string').slice(-LIMIT) : [];
  } catch {
    return [];
  }
}

/** Up takes the history only with the caret on the box's first line, Down on its last: otherwise the keys move the caret. */
export const onFirstLine = (text: string, caret: number) => !text.slice(0, caret).includes('\n');
export const onLastLine = (text: string, caret: number) => !text.slice(caret).includes('\n');
