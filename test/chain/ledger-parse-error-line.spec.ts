/**
 * The line a malformed ledger is reported at (probe 2026-11-28, operators' hand edits): Node 20's
 * JSON.parse says "Unexpected token …" without a position for a byte order mark or a bare word, and
 * the error then named the file's last line. The start line, the reload warning and `passport mint`
 * all print this line number, so it must point at the mistake.
 */
import { parseLedger, serializeLedger, LedgerFormatError } from '@passport/adapters/ledger';

const good = serializeLedger({
  contractId: 'passport.local',
  passports: [{ token_id: 'abcdefghijkl', owner_id: 'alice.near', metadata: { userselected_dn: 'NNSWF=A' } }],
  accounts: {},
});
const lines = good.split('\n');
const lineCount = good.trimEnd().split('\n').length;

function errorLine(text: string): number {
  try {
    parseLedger(text, 'ledger.json');
  } catch (error) {
    if (error instanceof LedgerFormatError) return error.line;
    throw error;
  }
  throw new Error('parsed');
}

describe('parseLedger: the line of a JSON syntax error', () => {
  it('a byte order mark is reported at line 1, not at the last line', () => {
    expect(lineCount).toBeGreaterThan(5);
    expect(errorLine(`\ufeff${good}`)).toBe(1);
  });

  it('a bare word (a typo of true) is reported on its own line', () => {
    const at = lines.findIndex((l) => l.includes('"owner_id"'));
    expect(at).toBeGreaterThan(0);
    const edited = lines.map((l, i) => (i === at ? l.replace('"alice.near"', 'tru') : l)).join('\n');
    expect(errorLine(edited)).toBe(at + 1);
  });
});
