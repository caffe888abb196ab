/**
 * The line a malformed ledger is reported at (probe 2026-11-28, operators' hand edits): Node 20's
 * JSON.parse says "Unexpected token …" without a position for a byte order mark or a bare word, and
 * the error then named the file's last line. The start line, the reload warning and `passport mint`
 * all print this line number, so it must point at the mistake. A leading byte order mark (some Windows
 * editors write one) is no mistake: it is ignored wherever the ledger is read (server and CLI share
 * parseLedger).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LedgerChainReader,
  LedgerFormatError,
  parseLedger,
  readLedgerFile,
  serializeLedger,
} from '@passport/adapters/ledger';
import { offsetOfJsonError } from '../../libs/passport-adapters/src/ledger/json-location.js';

const doc = {
  contractId: 'passport.local',
  passports: [{ token_id: 'abcdefghijkl', owner_id: 'alice.near', metadata: { userselected_dn: 'NNSWF=A' } }],
  accounts: {},
};
const good = serializeLedger(doc);
const lines = good.split('\n');
const lineCount = good.trimEnd().split('\n').length;

function errorOf(text: string): LedgerFormatError {
  try {
    parseLedger(text, 'ledger.json');
  } catch (error) {
    if (error instanceof LedgerFormatError) return error;
    throw error;
  }
  throw new Error('parsed');
}
const errorLine = (text: string): number => errorOf(text).line;

/** The ledger with the value `"alice.near"` on its owner_id line replaced by `replacement`. */
function withOwner(replacement: string): { text: string; line: number } {
  const at = lines.findIndex((l) => l.includes('"owner_id"'));
  expect(at).toBeGreaterThan(0);
  const text = lines.map((l, i) => (i === at ? l.replace('"alice.near"', replacement) : l)).join('\n');
  return { text, line: at + 1 };
}

describe('parseLedger: a byte order mark', () => {
  it('is accepted at the start of the file', () => {
    expect(lineCount).toBeGreaterThan(5);
    expect(parseLedger(`\ufeff${good}`, 'ledger.json')).toEqual(doc);
  });

  it('does not move the line of a later mistake', () => {
    const { text, line } = withOwner('tru');
    expect(errorLine(`\ufeff${text}`)).toBe(line);
  });

  it("is accepted by the server's reader and the CLI's read of the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'passport-ledger-bom-'));
    try {
      const file = join(dir, 'ledger.json');
      writeFileSync(file, `\ufeff${good}`);
      await expect(readLedgerFile(file)).resolves.toEqual(doc);
      const reader = await LedgerChainReader.open(file);
      expect(reader.contractId).toBe('passport.local');
      reader.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('parseLedger: the line of a JSON syntax error', () => {
  it('a bare word (a typo of true) is reported on its own line', () => {
    const { text, line } = withOwner('tru');
    expect(errorLine(text)).toBe(line);
    expect(errorOf(text).message).toBe(`ledger.json:${line}: is not valid JSON`);
  });

  it.each([
    ['a single-quoted string', "'alice.near'"],
    ['an unquoted word', 'alice'],
    ['a word after a string', '"alice.near" x'],
    ['a leading zero', '01'],
    ['a bad escape', '"ali\\qce"'],
  ])('%s is reported on its own line', (_, replacement) => {
    const { text, line } = withOwner(replacement);
    expect(errorLine(text)).toBe(line);
  });

  it('a missing closing bracket is reported at the last line', () => {
    expect(errorLine(good.trimEnd().slice(0, -1))).toBe(lineCount);
  });

  it('a second byte order mark (not at the start) is a mistake, on its line', () => {
    const { text, line } = withOwner('\ufeff"alice.near"');
    expect(errorLine(text)).toBe(line);
  });
});

describe('offsetOfJsonError (where JSON.parse gives no position)', () => {
  it.each([
    ['{"a": tru\n}', 9],
    ['[1, 2,]', 6],
    ['{"a" 1}', 5],
    ['{"a": "b\nc"}', 8],
    ['{"a": "\\u12x4"}', 11],
    ['{} x', 3],
    ['{"a": [1, 2\n\n', 11],
    ['-', 1],
    ['1.e3', 2],
  ])('%j stops at %i', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(offsetOfJsonError(text)).toBe(offset);
  });

  it.each(['{}', '[]', ' {"a": [1, -2.5e+3, true, false, null, "\\u00e9\\n"]} ', '0', '"x"'])(
    'finds nothing in valid JSON %j',
    (text) => {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(offsetOfJsonError(text)).toBeUndefined();
    },
  );

  it('gives up (no line rather than a wrong one) on nesting deeper than its stack', () => {
    const deep = `${'['.repeat(200_000)}x`;
    expect(offsetOfJsonError(deep)).toBeUndefined();
    // Node 20 names no position for this one (a later Node may: then its line is used).
    expect(() => JSON.parse(deep)).toThrow(/^Unexpected token 'x'/);
    expect(errorOf(deep)).toMatchObject({
      line: 0,
      message: 'ledger.json: is not valid JSON (no line known)',
    });
  });
});
