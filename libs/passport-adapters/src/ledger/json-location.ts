/**
 * Finds the line of a value inside JSON text, given its path (`['passports', 3, 'owner_id']`), so that a
 * malformed ledger is reported with the line a person has to fix. `JSON.parse` keeps no positions, so
 * this is a small read-only scanner over already-valid JSON; it never builds values.
 */

type PathSegment = string | number;

/** 1-based line of the value at `path`; the closest enclosing value's line when the path ends early. */
export function lineOfJsonPath(text: string, path: readonly PathSegment[]): number {
  const scanner = new Scanner(text);
  try {
    const offset = scanner.locate(path);
    return lineOfOffset(text, offset);
  } catch {
    return 1;
  }
}

/** 1-based line of a character offset. */
export function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

class Scanner {
  private pos = 0;
  constructor(private readonly text: string) {}

  /** Offset of the value at `path`, or of the deepest value that exists on the way. */
  locate(path: readonly PathSegment[]): number {
    this.skipWs();
    let found = this.pos;
    for (const segment of path) {
      const start = this.pos;
      const child =
        this.text[start] === '{'
          ? this.findMember(String(segment))
          : this.text[start] === '['
            ? this.findItem(Number(segment))
            : null;
      if (child === null) return found;
      found = child;
      this.pos = child;
    }
    return found;
  }

  private findMember(key: string): number | null {
    this.pos++; // {
    this.skipWs();
    if (this.text[this.pos] === '}') return null;
    for (;;) {
      this.skipWs();
      const name = this.readString();
      this.skipWs();
      this.pos++; // :
      this.skipWs();
      if (name === key) return this.pos;
      this.skipValue();
      this.skipWs();
      if (this.text[this.pos] !== ',') return null;
      this.pos++;
    }
  }

  private findItem(index: number): number | null {
    this.pos++; // [
    this.skipWs();
    if (this.text[this.pos] === ']') return null;
    for (let i = 0; ; i++) {
      this.skipWs();
      if (i === index) return this.pos;
      this.skipValue();
      this.skipWs();
      if (this.text[this.pos] !== ',') return null;
      this.pos++;
    }
  }

  private skipValue(): void {
    const c = this.text[this.pos];
    if (c === '"') {
      this.readString();
      return;
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      this.pos++;
      this.skipWs();
      if (this.text[this.pos] === close) {
        this.pos++;
        return;
      }
      for (;;) {
        this.skipWs();
        if (c === '{') {
          this.readString();
          this.skipWs();
          this.pos++; // :
          this.skipWs();
        }
        this.skipValue();
        this.skipWs();
        const next = this.text[this.pos++];
        if (next === close) return;
        if (next !== ',') throw new Error('unexpected');
      }
    }
    while (this.pos < this.text.length && !/[\s,}\]]/.test(this.text[this.pos])) this.pos++;
  }

  private readString(): string {
    const start = this.pos;
    this.pos++; // opening quote
    while (this.pos < this.text.length) {
      const c = this.text[this.pos];
      if (c === '\\') this.pos += 2;
      else if (c === '"') {
        this.pos++;
        return JSON.parse(this.text.slice(start, this.pos)) as string;
      } else this.pos++;
    }
    throw new Error('unterminated string');
  }

  private skipWs(): void {
    while (this.pos < this.text.length && /\s/.test(this.text[this.pos])) this.pos++;
  }
}
