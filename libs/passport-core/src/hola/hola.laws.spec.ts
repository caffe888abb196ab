/**
 * Property laws of HOLA parsing and building (docs/protocol.md §2) against a reference parser written
 * from the spec's rules (resolutions.md §2) with split and regular expressions: the parser's reason code
 * equals the reference's on valid lines edited at random; canonical form (a parsed line rebuilt from
 * its fields is the line uppercased); round trip with any visible delegate id.
 */
import fc from 'fast-check';
import { decodeBase32 } from '../codecs/base32.codec.js';
import { hasUnprintable } from '../codecs/printable-text.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { buildHolaLine, holaSignedPrefix } from './hola.builder.js';
import { HOLA_CHECKSUM_ALPHABET, holaChecksum } from './hola.checksum.js';
import { parseHola } from './hola.parser.js';
import { isVisibleText } from './delegate-id.js';

const serviceHost = 'api.example.com:8443';
const HOST = serviceHost.toUpperCase();

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function referenceTimestampOk(ts: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,9})?(?:Z|[+-](\d{2}):(\d{2}))$/.exec(
    ts,
  );
  if (!m) return false;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  if (mo < 1 || mo > 12 || d < 1 || d > DAYS[mo - 1] + (mo === 2 && leap ? 1 : 0)) return false;
  if (h > 23 || mi > 59 || s > 59) return false;
  if (m[7] !== undefined && (Number(m[7]) > 23 || Number(m[8]) > 59)) return false;
  return true;
}

/** The early-validation outcome as resolutions.md §2 words it, step by step. */
function referenceParse(input: unknown): string {
  if (typeof input === 'object' && input !== null) return 'payload_is_json_object';
  if (typeof input === 'string') {
    try {
      const v: unknown = JSON.parse(input.trim());
      if (typeof v === 'object' && v !== null && !Array.isArray(v) && input.trim().startsWith('{'))
        return 'payload_is_json_object';
    } catch {
      /* not JSON */
    }
  }
  if (typeof input !== 'string' || input.length > 512) return 'invalid_format';
  const line = input.toUpperCase();
  if (!line.startsWith('HOLA/')) return 'invalid_format';
  const f = line.split('/');
  if (f.length !== 8 && f.length !== 10) return 'invalid_format';
  const n = f.length;
  const token = /^[A-Z]{12}$/;
  if (!(f[1] === '' || f[1] === 'MUNDO' || token.test(f[1]))) return 'invalid_format';
  if (f[n - 3] !== HOST) return 'invalid_format';
  if (!/^[0-9A-F]+$/.test(f[n - 4])) return 'invalid_format';
  let ts: string;
  if (n === 8) {
    if (!token.test(f[2])) return 'invalid_format';
    ts = f[3];
  } else {
    const d = f[2];
    if (d.length < 1 || d.length > 128 || hasUnprintable(d) || !isVisibleText(d)) return 'invalid_format';
    if (!token.test(f[3])) return 'invalid_format';
    if (!/^[A-Z2-7]{52}$/.test(f[4]) || decodeBase32(f[4]) === null) return 'invalid_format';
    ts = f[5];
  }
  if (/^\d{10,}$/.test(ts)) return 'unix_millis_timestamp';
  const sig = f[n - 2];
  if (/[<>[\]{}()\s]|\.\.\.|SIGNATURE|PLACEHOLDER/.test(sig)) return 'placeholder_signature';
  const body = sig.replace(/=+$/, '');
  if (!/^[A-Z2-7]{103}$/.test(body) || decodeBase32(body) === null) return 'signature_not_base32';
  if (!referenceTimestampOk(ts)) return 'invalid_format';
  const prefix = [...f.slice(0, n - 2), ''].join('/').replace(/^HOLA\/\//, 'HOLA/MUNDO/');
  const summed = prefix + sig + '/';
  let sum = 0;
  for (let i = 0; i < summed.length; i++) sum += summed.charCodeAt(i); // UTF-16 code units, not code points
  if (f[n - 1] !== HOLA_CHECKSUM_ALPHABET[sum % 23]) return 'checksum_invalid';
  return 'ok';
}

const tokenId = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
  minLength: 12,
  maxLength: 12,
});
const visibleId = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
  .filter(
    (s) =>
      !s.includes('/') &&
      !hasUnprintable(s) &&
      isVisibleText(s.toUpperCase()) &&
      s.toUpperCase().length <= 128,
  );
const lineParams = fc.record({
  seed: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  recipient: fc.option(fc.oneof(tokenId, fc.constant('MUNDO'), fc.constant('mundo')), { nil: undefined }),
  senderTokenId: tokenId,
  timestamp: fc
    .date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  nonceHex: fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFabcdef'), minLength: 1, maxLength: 32 }),
  subagent: fc.option(fc.record({ delegateId: visibleId }), { nil: undefined }),
});
type LineParams = typeof lineParams extends fc.Arbitrary<infer T> ? T : never;
const build = (p: LineParams) => buildHolaLine({ ...p, serviceHost, signer: createNobleSigner(p.seed) });

const EDIT_CHARS = [...'ABCZ27=/0189-:.TZ+ aé<>ß\n\u0000\u200b\ud800{}"'];
const edit = fc.tuple(fc.nat(), fc.nat(3), fc.string({ unit: fc.constantFrom(...EDIT_CHARS), maxLength: 3 }));

describe('HOLA laws', () => {
  it('oracle: the reason code equals a reference parser written from resolutions.md §2, on valid lines edited at random', () => {
    fc.assert(
      fc.property(lineParams, fc.array(edit, { maxLength: 3 }), (p, edits) => {
        let text = build(p);
        for (const [at, cut, insert] of edits) {
          const i = at % (text.length + 1);
          text = text.slice(0, i) + insert + text.slice(i + cut);
        }
        const result = parseHola(text, { serviceHost });
        expect(result.ok ? 'ok' : result.failure.reasonCode).toBe(referenceParse(text));
      }),
      { numRuns: 1500 },
    );
  });

  it('oracle: the reason code equals the reference on arbitrary text shaped like a line', () => {
    const field = fc.string({ unit: fc.constantFrom(...EDIT_CHARS, 'A', 'B', '2'), maxLength: 14 });
    fc.assert(
      fc.property(fc.array(field, { minLength: 6, maxLength: 10 }), (fields) => {
        const text = ['HOLA', ...fields].join('/');
        const result = parseHola(text, { serviceHost });
        expect(result.ok ? 'ok' : result.failure.reasonCode).toBe(referenceParse(text));
      }),
      { numRuns: 1500 },
    );
  });

  it('canonical form: a line that parses is its fields rebuilt (uppercased), and the checksum letter is holaChecksum', () => {
    fc.assert(
      fc.property(lineParams, fc.boolean(), (p, lower) => {
        const line = build(p);
        // Lowercasing is undone by uppercasing only for ASCII (İ lowercases to i + U+0307).
        const sent = lower && !/[^\x20-\x7e]/.test(line) ? line.toLowerCase() : line;
        const r = parseHola(sent, { serviceHost });
        if (!r.ok) throw new Error(r.failure.message);
        const prefix = holaSignedPrefix({
          recipient: r.line.recipient,
          senderTokenId: r.line.senderTokenId,
          timestamp: r.line.timestamp,
          nonceHex: r.line.nonceHex,
          serviceHost,
          subagent: r.line.delegateId === undefined ? undefined : { delegateId: r.line.delegateId },
          subagentPublicKey: r.line.subagentPublicKey,
        });
        expect(r.line.signedPrefix).toBe(prefix);
        expect(`${prefix}${r.line.signatureText}/${holaChecksum(prefix, r.line.signatureText)}`).toBe(line);
      }),
      { numRuns: 200 },
    );
  });

  it('round trip: any visible delegate id comes back uppercased, and the line builds only when it parses', () => {
    fc.assert(
      fc.property(lineParams, visibleId, (p, delegateId) => {
        const line = build({ ...p, subagent: { delegateId } });
        const r = parseHola(line, { serviceHost });
        if (!r.ok) throw new Error(r.failure.message);
        expect(r.line.delegateId).toBe(delegateId.toUpperCase());
        if (!/[^\x20-\x7e]/.test(line)) expect(parseHola(line.toLowerCase(), { serviceHost })).toEqual(r);
      }),
      { numRuns: 200 },
    );
  });
});
