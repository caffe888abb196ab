/**
 * Property laws of the DN parser (docs/protocol.md §4) on DN-shaped text with quotes, escapes and hex
 * runs: canonical form (what parseDn reads, formatDn writes and parseDn reads back unchanged), the
 * interpreted fields agree with the attributes, and every non-blank component is read or set aside.
 */
import fc from 'fast-check';
import { DN_MAX_LENGTH, formatDn, isDnFullyParsed, parseDn } from './dn.parser.js';

const dnish = fc.string({
  unit: fc.constantFrom(
    ...'AaZ09_-.=,"\\ \t',
    'NNSWF=',
    'NSWF=',
    'nswf=',
    'ContactURI=',
    'Creature=',
    'mailto:a:b',
    '\\41',
    '\\c3\\a9',
    '\\ff',
    '\u00e9',
    '\u732b',
    '\ud83d\ude00',
    '\u00a0',
  ),
  maxLength: 40,
});

describe('DN laws', () => {
  it('canonical form: formatDn of what parseDn reads parses back to the same attributes, fully', () => {
    fc.assert(
      fc.property(dnish, (text) => {
        const dn = parseDn(text);
        if (dn === null) return;
        const written = formatDn(dn.attributes);
        fc.pre(written.length <= DN_MAX_LENGTH);
        const again = parseDn(written);
        expect(again?.attributes).toEqual(dn.attributes);
        expect(isDnFullyParsed(written)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('the interpreted fields are the first non-empty NNSWF/NSWF/Creature/AvatarURL/EmojiURL and every ContactURI of the form scheme:authority:identifier', () => {
    fc.assert(
      fc.property(dnish, (text) => {
        const dn = parseDn(text);
        if (dn === null) return;
        const first = (n: string) => {
          const a = dn.attributes.find((x) => x.name.toLowerCase() === n);
          return a && a.value !== '' ? a.value : null;
        };
        expect(dn.nnswf).toBe(first('nnswf'));
        expect(dn.nswf).toBe(first('nswf'));
        expect(dn.displayName).toBe([dn.nnswf, dn.nswf].filter((x) => x !== null).join(' ') || null);
        expect(dn.creature).toBe(first('creature'));
        expect(dn.contactUris).toEqual(
          dn.attributes
            .filter(
              (a) =>
                a.name.toLowerCase() === 'contacturi' && /^[A-Za-z][A-Za-z0-9+.-]*:[^:]+:.+$/s.test(a.value),
            )
            .map((a) => a.value),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it('bounds: null past DN_MAX_LENGTH; a DN with no "=" at all is null', () => {
    fc.assert(
      fc.property(dnish, fc.nat(10), (text, extra) => {
        expect(parseDn(text.padEnd(DN_MAX_LENGTH + 1 + extra, 'x'))).toBeNull();
        if (!text.includes('=') && !text.includes('\\3d') && !text.includes('\\3D'))
          expect(parseDn(text)).toBeNull();
      }),
    );
  });
});
