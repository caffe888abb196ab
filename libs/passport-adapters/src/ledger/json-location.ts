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

/** Where `offsetOfJsonError` stopped: the offset of the first character JSON does not allow there. */
class JsonSyntaxStop {
  constructor(readonly offset: number) {}
}

/**
 * Offset of the first character that makes `text` invalid JSON (the end of its last non-blank line when
 * it ends too early), or undefined when it is valid or too deeply nested to scan. For the line of a
 * syntax error: Node 20's `JSON.parse` gives no position for an unexpected token ("Unexpected token
 * 'x', … is not valid JSON"), and the last line was named instead.
 */
export function offsetOfJsonError(text: string): number | undefined {
  const end = text.trimEnd().length;
  let pos = 0;
  const stop = (at = pos): never => {
    throw new JsonSyntaxStop(at >= text.length ? end : at);
  };
  const skipWs = (): void => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos]!)) pos++;
  };
  const digits = (): void => {
    if (!(text[pos]! >= '0' && text[pos]! <= '9')) stop();
    while (text[pos]! >= '0' && text[pos]! <= '9') pos++;
  };
  const string = (): void => {
    pos++; // the opening quote
    for (;;) {
      if (pos >= text.length) stop();
      const code = text.charCodeAt(pos);
      if (code === 0x22) break;
      if (code < 0x20) stop();
      if (code === 0x5c) {
        pos++;
        if (text[pos] === 'u') {
          for (let i = 1; i <= 4; i++) if (!/[0-9a-fA-F]/.test(text[pos + i] ?? '')) stop(pos + i);
          pos += 4;
        } else if (!'"\\/bfnrt'.includes(text[pos] ?? 'x')) stop();
      }
      pos++;
    }
    pos++; // the closing quote
  };
  const value = (): void => {
    skipWs();
    const c = text[pos];
    if (c === '{') {
      pos++;
      skipWs();
      if (text[pos] === '}') return void pos++;
      for (;;) {
        skipWs();
        if (text[pos] !== '"') stop();
        string();
        skipWs();
        if (text[pos] !== ':') stop();
        pos++;
        value();
        skipWs();
        if (text[pos] === '}') return void pos++;
        if (text[pos] !== ',') stop();
        pos++;
      }
    }
    if (c === '[') {
      pos++;
      skipWs();
      if (text[pos] === ']') return void pos++;
      for (;;) {
        value();
        skipWs();
        if (text[pos] === ']') return void pos++;
        if (text[pos] !== ',') stop();
        pos++;
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      if (c === '-') pos++;
      if (text[pos] === '0') pos++;
      else digits();
      if (text[pos] === '.') {
        pos++;
        digits();
      }
      if (text[pos] === 'e' || text[pos] === 'E') {
        pos++;
        if (text[pos] === '+' || text[pos] === '-') pos++;
        digits();
      }
      return;
    }
    for (const word of ['true', 'false', 'null'])
      if (c === word[0]) {
        for (const letter of word) {
          if (text[pos] !== letter) stop();
          pos++;
        }
        return;
      }
    stop();
  };
  try {
    value();
    skipWs();
    if (pos < text.length) stop();
    return undefined;
  } catch (error) {
    if (error instanceof JsonSyntaxStop) return error.offset;
    return undefined; // nesting deeper than the stack (JSON.parse has no such limit)
  }
}
