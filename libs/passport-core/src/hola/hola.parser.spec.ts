/**
 * HOLA parsing, checksum and building (docs/protocol.md §2): every early-validation reason code from a
 * real line in the documented order, the §2 checksum example, signed lines from fixed seeds, and
 * property tests (round trip, single-character forgeries, totality on arbitrary input).
 */
import fc from 'fast-check';
import vectors from '../../test-vectors/hola.json' with { type: 'json' };
import { decodeHex, encodeHex } from '../codecs/hex.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { buildHolaLine } from './hola.builder.js';
import { codeUnitSum, holaChecksum, HOLA_CHECKSUM_ALPHABET } from './hola.checksum.js';
import { HOLA_TIMESTAMP_GRAMMAR, parseHolaTimestamp } from './hola-timestamp.parser.js';
import { parseHola } from './hola.parser.js';
import { HOLA_REASON_CODES, HOLA_VALIDATION_STAGE, type ParsedHola } from './hola.types.js';

const serviceHost = vectors.serviceHost;
const parse = (input: unknown, host = serviceHost) => parseHola(input, { serviceHost: host });
const noble = createNobleVerifier();

describe('early validation: each reason code from a real line', () => {
  it.each(vectors.invalid.map((v) => [v.id, v] as const))('%s', (_id, v) => {
    const result = parse(v.input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.failure.reasonCode).toBe(v.reasonCode);
    expect(result.failure.stage).toBe(HOLA_VALIDATION_STAGE);
    expect(result.failure.hint).toMatch(/^[^\n]{10,200}$/);
    expect(result.failure.message.length).toBeGreaterThan(0);
  });

  it('covers every reason code', () => {
    expect(new Set(vectors.invalid.map((v) => v.reasonCode))).toEqual(new Set(HOLA_REASON_CODES));
  });

  it('names the expected and received letters of a wrong checksum', () => {
    const line = vectors.valid[0].line;
    const wrong = line.slice(0, -1) + (line.endsWith('A') ? 'B' : 'A');
    const result = parse(wrong);
    if (result.ok) throw new Error('a wrong checksum parsed');
    expect(result.failure).toMatchObject({
      reasonCode: 'checksum_invalid',
      stage: 'format_checksum_and_payload_validation',
      expected: line.at(-1),
      received: wrong.at(-1),
    });
    expect(result.failure.message).toContain(`"${line.at(-1)}"`);
    expect(result.failure.message).toContain(`"${wrong.at(-1)}"`);
  });

  // Found by an integrator's review: a line read from a file or stdin keeps its newline, and the message
  // ("expected "S", received "S?"") made the checksum look right.
  it.each([['\n'], ['\r\n'], [' ']])(
    'says what is wrong when the line goes on after its checksum (%j)',
    (rest) => {
      const line = vectors.valid[0].line;
      const result = parse(line + rest);
      if (result.ok) throw new Error('a line with a trailing line break parsed');
      expect(result.failure.reasonCode).toBe('checksum_invalid');
      expect(result.failure.message).toMatch(/line break: strip it/);
      expect(result.failure.hint).toMatch(/^Strip the whitespace or line break/);
      const wrong = parse(line.slice(0, -1) + (line.endsWith('A') ? 'B' : 'A'));
      if (wrong.ok) throw new Error('a wrong checksum parsed');
      expect(wrong.failure.message).not.toMatch(/strip it/);
      expect(wrong.failure.hint).toMatch(/^Recompute the checksum/);
      // A mutation probe: the hint for a right letter followed by whitespace was also given to a wrong one.
      const wrongThenSpace = parse(line.slice(0, -1) + (line.endsWith('A') ? 'B' : 'A') + rest);
      if (wrongThenSpace.ok) throw new Error('a wrong checksum parsed');
      expect(wrongThenSpace.failure.message).not.toMatch(/strip it/);
      expect(wrongThenSpace.failure.hint).toMatch(/^Recompute the checksum/);
    },
  );

  it('called without options (JavaScript), says the service host is required', () => {
    const untyped = parseHola as (input: unknown) => unknown;
    expect(() => untyped(vectors.valid[0].line)).toThrow(/serviceHost.*required/);
  });

  // Found by a probe: CR LF, ESC sequences, U+202E and NUL after the checksum, or in the host marker, came
  // back as sent in the 400's message and details (relying parties log and show them).
  it('echoes a wrong checksum or host marker as printable text only', () => {
    const line = vectors.valid[0].line;
    const hostile = '\r\n\u001b[31mX-Admin: true\u202e\u0000';
    const checksum = parse(line + hostile);
    if (checksum.ok) throw new Error('a wrong checksum parsed');
    expect(checksum.failure.reasonCode).toBe('checksum_invalid');
    const fields = line.split('/');
    fields[fields.length - 3] = `API${hostile}`;
    const host = parse(fields.join('/'));
    if (host.ok) throw new Error('a wrong host parsed');
    for (const failure of [checksum.failure, host.failure]) {
      const shown = JSON.stringify(failure);
      expect(shown).not.toMatch(/\\r|\\n|\\u001b|\\u0000|\u202e/);
      expect(failure).toHaveProperty('received', expect.stringContaining('?'));
    }
  });

  it('uses SERVICE_HOST uppercased as the host marker', () => {
    expect(parse(vectors.valid[0].line, 'PASSPORT.example:8443').ok).toBe(true);
    expect(parse(vectors.valid[0].line, 'passport.example').ok).toBe(false);
  });
});

describe('checksum', () => {
  it('reproduces the docs/protocol.md §2 example: sum 13807 → H', () => {
    const ex = vectors.checksumExample;
    expect(codeUnitSum(ex.signedPrefix + ex.signatureText + '/')).toBe(13807);
    expect(holaChecksum(ex.signedPrefix, ex.signatureText)).toBe('H');
    expect(HOLA_CHECKSUM_ALPHABET).toHaveLength(23);
    expect(HOLA_CHECKSUM_ALPHABET).not.toMatch(/[ILO]/);
  });

  it.each([
    [1, 2],
    [undefined, undefined],
    ['HOLA/', null],
  ])(
    'holaChecksum(%p, %p) (from JavaScript) → a TypeError, not a letter for no line',
    (prefix, signature) => {
      expect(() => holaChecksum(prefix as never, signature as never)).toThrow(
        /holaChecksum\(signedPrefix, signatureText\): both are strings/,
      );
    },
  );
});

describe('signed lines from fixed seeds', () => {
  it.each(vectors.valid.map((v) => [v.id, v] as const))(
    '%s parses, verifies and rebuilds byte for byte',
    (_id, v) => {
      const result = parse(v.line);
      if (!result.ok) throw new Error(result.failure.message);
      const line: ParsedHola = result.line;
      expect(line.form).toBe(v.form);
      expect(line.recipient).toBe(v.recipient);
      expect(line.senderTokenId).toBe(v.senderTokenId);
      expect(line.timestamp).toBe(v.timestamp);
      expect(line.timestampMs).toBe(v.timestampMs);
      expect(line.nonceHex).toBe(v.nonceHex);
      expect(line.host).toBe(serviceHost.toUpperCase());
      expect(line.signedPrefix).toBe(v.signedPrefix);
      expect(encodeHex(utf8(line.signedPrefix))).toBe(v.signedBytes);
      expect(encodeHex(line.signature)).toBe(v.signature);
      expect(line.checksum).toBe(v.checksum);
      const key = decodeHex(v.publicKey)!;
      if (v.form === 'subagent') {
        expect(line.delegateId).toBe(v.delegateId);
        expect(encodeHex(line.subagentPublicKey!)).toBe(v.publicKey);
      } else {
        expect(line.delegateId).toBeUndefined();
      }
      expect(noble.verify(line.signature, utf8(line.signedPrefix), key)).toBe(true);

      const signer = createNobleSigner(decodeHex(v.seed)!);
      const rebuilt = buildHolaLine({
        recipient: v.recipient,
        senderTokenId: v.senderTokenId,
        timestamp: v.timestamp,
        nonceHex: v.nonceHex,
        serviceHost: v.serviceHost,
        signer,
        subagent: v.form === 'subagent' ? { delegateId: v.delegateId! } : undefined,
      });
      expect(rebuilt).toBe(v.line);
    },
  );

  it.each(vectors.valid.map((v) => [v.id, v] as const))(
    '%s parses to the same fields with its letters in any case',
    (_id, v) => {
      const expected = parse(v.line);
      fc.assert(
        fc.property(
          fc.array(fc.boolean(), { minLength: v.line.length, maxLength: v.line.length }),
          (lower) => {
            const mixed = [...v.line].map((c, i) => (lower[i] ? c.toLowerCase() : c)).join('');
            expect(parse(mixed)).toEqual(expected);
          },
        ),
        { numRuns: 200 },
      );
    },
  );

  it('uppercases non-ASCII characters before any check, as the signer did (ß becomes SS)', () => {
    const signer = createNobleSigner(new Uint8Array(32).fill(7));
    const line = buildHolaLine({
      senderTokenId: 'abcdefghijkl',
      timestamp: '2026-04-19T10:47:00.000Z',
      nonceHex: 'ABCDEF',
      serviceHost,
      signer,
      subagent: { delegateId: 'straße-agent' },
    });
    expect(line).toContain('/STRASSE-AGENT/');
    const sent = line.replace('STRASSE-AGENT', 'straße-agent');
    const result = parse(sent);
    if (!result.ok) throw new Error(result.failure.message);
    expect(result.line.delegateId).toBe('STRASSE-AGENT');
    expect(result).toEqual(parse(line));
  });

  it.each(vectors.parseable.map((v) => [v.id, v] as const))('%s passes early validation', (_id, v) => {
    const result = parse(v.input, v.serviceHost ?? serviceHost);
    if (!result.ok) throw new Error(result.failure.message);
    expect(result.line.signedPrefix).toBe(v.signedPrefix);
  });

  it('refuses to build a line it could not parse', () => {
    const signer = createNobleSigner(new Uint8Array(32));
    const good = {
      senderTokenId: 'chbvcnurbkuw',
      timestamp: '2026-04-19T10:47:00.000Z',
      nonceHex: 'AB',
      serviceHost,
      signer,
    };
    expect(() => buildHolaLine({ ...good, senderTokenId: 'short' })).toThrow(RangeError);
    expect(() => buildHolaLine({ ...good, timestamp: '1776595620000' })).toThrow(RangeError);
    expect(() => buildHolaLine({ ...good, nonceHex: 'nothex' })).toThrow(RangeError);
    expect(() => buildHolaLine({ ...good, recipient: 'bob' })).toThrow(RangeError);
    // A marker no deployment can be configured with (the server's rule, isServiceHostMarker).
    for (const serviceHost of ['..', 'h:99999', 'a..b'])
      expect(() => buildHolaLine({ ...good, serviceHost })).toThrow(RangeError);
    expect(() => buildHolaLine({ ...good, subagent: { delegateId: 'a/b' } })).toThrow(RangeError);
    // Found by a probe: 'bot\uD800' and 'BOT\uDC00' signed the same UTF-8 bytes (both U+FFFD), so one
    // signature verified for each, and a line seen in transit was front-run under another delegate id.
    for (const delegateId of ['bot\ud800', '\udc00', 'a\udbffb'])
      expect(() => buildHolaLine({ ...good, subagent: { delegateId } })).toThrow(/lone surrogate/);
    const valid = buildHolaLine({ ...good, subagent: { delegateId: 'bot\u{1f916}' } });
    expect(parse(valid).ok).toBe(true);
    const forged = valid.replace('BOT\u{1f916}', 'BOT\ud800');
    expect(parse(forged)).toMatchObject({ ok: false, failure: { reasonCode: 'invalid_format' } });
    // Found by a probe: verify echoed a delegate id of NUL, ESC and a bidi override as it was; relying
    // parties show it. Each is refused when building and when parsing (a signed line carrying it too).
    for (const delegateId of [
      '\u0000bot',
      'bot\u001b[2K',
      '\u202eevil',
      'a\u200bb',
      'x\u0085',
      'a\u2028b',
      'del\u007f',
    ]) {
      expect(() => buildHolaLine({ ...good, subagent: { delegateId } })).toThrow(/printable text/);
      expect(parse(valid.replace('BOT\u{1f916}', delegateId.toUpperCase()))).toMatchObject({
        ok: false,
        failure: { reasonCode: 'invalid_format', message: expect.stringMatching(/printable text/) },
      });
    }
    // Found by a probe: a delegate id of blanks alone (U+3000, U+3164) showed nothing where it was echoed.
    // And a word hidden in variation selectors behind a visible one (a review), marks alone, private use.
    for (const delegateId of [
      ' ',
      '\u3000',
      '\u3164',
      '\u2800\u00a0',
      'BOT\u{e0139}\u{e0137}',
      '\u0300',
      '\ue000',
    ]) {
      expect(() => buildHolaLine({ ...good, subagent: { delegateId } })).toThrow(/show something/);
      expect(parse(valid.replace('BOT\u{1f916}', delegateId))).toMatchObject({
        ok: false,
        failure: { reasonCode: 'invalid_format', message: expect.stringMatching(/show something/) },
      });
    }
    expect(parse(valid).ok).toBe(true);
    // Found by a probe: a host marker with a newline built a signed two-line "line".
    for (const host of ['evil\nhost', 'ÿ.com', 'a/b', 'host:port', 'api.example.com:123456', ''])
      expect(() => buildHolaLine({ ...good, serviceHost: host })).toThrow(/host marker/);
    expect(buildHolaLine({ ...good, serviceHost: 'LocalHost:3000' })).toContain('/LOCALHOST:3000/');
  });
});

describe('timestamp grammar', () => {
  it.each([
    ['2026-04-19T10:47:00.000Z', Date.UTC(2026, 3, 19, 10, 47)],
    ['2026-04-19T10:47:00Z', Date.UTC(2026, 3, 19, 10, 47)],
    ['2026-04-19T12:47:00.5+02:00', Date.UTC(2026, 3, 19, 10, 47, 0, 500)],
    ['2026-04-19T05:17:00.123456-05:30', Date.UTC(2026, 3, 19, 10, 47, 0, 123)],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2000-02-29T23:59:59.999Z', Date.UTC(2000, 1, 29, 23, 59, 59, 999)],
    ['0001-01-01T00:00:00Z', -62135596800000],
  ])('%s', (text, ms) => {
    expect(parseHolaTimestamp(text)).toBe(ms);
  });

  it('property: agrees with Date on every toISOString of years 0000–9999', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        (d) => {
          expect(parseHolaTimestamp(d.toISOString())).toBe(d.getTime());
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    '-1',
    '1776595620000',
    '2023-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-04-19T24:00:00Z',
    '2026-04-19T10:60:00Z',
    '2026-04-19T10:47:60Z',
    '2026-04-19T10:47:00.Z',
    '2026-04-19T10:47:00.1234567890Z',
    '2026-04-19T10:47:00+0200',
    '2026-04-19T10:47:00+24:00',
    '2026-04-19t10:47:00z',
    '2026-04-19T10:47Z',
    '+002026-04-19T10:47:00Z',
  ])('refuses %s', (text) => {
    expect(parseHolaTimestamp(text)).toBeNull();
  });

  /** The grammar's regular expression plus the calendar rules: the reference the scanner must equal. */
  function referenceTimestamp(text: string): number | null {
    const m = HOLA_TIMESTAMP_GRAMMAR.exec(text);
    if (!m) return null;
    const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
    if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return null;
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    if (day > [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]) return null;
    let offset = 0;
    if (!m[8]) {
      if (Number(m[10]) > 23 || Number(m[11]) > 59) return null;
      offset = (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
    }
    const millis = m[7] ? Number(m[7].padEnd(3, '0').slice(0, 3)) : 0;
    const date = new Date(0);
    date.setUTCFullYear(year, month - 1, day);
    date.setUTCHours(hour, minute, second, millis);
    return date.getTime() - offset * 60_000;
  }

  const nearTimestamp = fc.oneof(
    // Valid shapes, with and without fractions and offsets…
    fc
      .tuple(
        fc.date({
          min: new Date('0000-01-01T00:00:00Z'),
          max: new Date('9999-12-31T23:59:59.999Z'),
          noInvalidDate: true,
        }),
        fc.constantFrom('', '.5', '.12', '.123', '.123456', '.123456789', '.1234567890', '.'),
        fc.constantFrom('Z', '+00:00', '-05:30', '+23:59', '+24:00', '-00:60', '+0200', 'z', ''),
      )
      .map(([d, fraction, zone]) => `${d.toISOString().slice(0, 19)}${fraction}${zone}`),
    // …then one character replaced, removed or inserted,
    fc
      .tuple(
        fc.date({
          min: new Date('1970-01-01T00:00:00Z'),
          max: new Date('2100-01-01T00:00:00Z'),
          noInvalidDate: true,
        }),
        fc.nat(40),
        fc.constantFrom(...'0123456789-:.TZ+ x\u0660'.split('')),
        fc.constantFrom('replace', 'remove', 'insert'),
      )
      .map(([d, at, c, how]) => {
        const t = d.toISOString();
        const i = at % t.length;
        return how === 'replace'
          ? t.slice(0, i) + c + t.slice(i + 1)
          : how === 'remove'
            ? t.slice(0, i) + t.slice(i + 1)
            : t.slice(0, i) + c + t.slice(i);
      }),
    // …and free strings over the grammar's alphabet.
    fc.string({ unit: fc.constantFrom(...'0123456789-:.TZ+'.split('')), minLength: 18, maxLength: 36 }),
  );

  it('property: the scanner equals the grammar (regular expression plus calendar) on near-timestamps', () => {
    fc.assert(
      fc.property(nearTimestamp, (text) => {
        expect(parseHolaTimestamp(text)).toBe(referenceTimestamp(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('property: reading a timestamp inside a longer text equals reading it cut out', () => {
    const around = fc.string({ unit: fc.constantFrom(...'0123456789-:.TZ+/'.split('')), maxLength: 8 });
    fc.assert(
      fc.property(around, nearTimestamp, around, (before, text, after) => {
        const line = before + text + after;
        expect(parseHolaTimestamp(line, before.length, before.length + text.length)).toBe(
          parseHolaTimestamp(text),
        );
      }),
      { numRuns: 10_000 },
    );
  });
});

// From a mutation probe: each bound moved by one, or the MUNDO check loosened, and no test failed (the
// property tests' random lengths almost never land on a bound).
describe('bounds, exactly', () => {
  const signer = createNobleSigner(new Uint8Array(32).fill(3));
  const build = (nonceHex: string, options: { delegateId?: string; recipient?: string } = {}) =>
    buildHolaLine({
      recipient: options.recipient,
      senderTokenId: 'bcdefghijklm',
      timestamp: '2026-11-27T10:00:00.000Z',
      nonceHex,
      serviceHost,
      signer,
      ...(options.delegateId === undefined ? {} : { subagent: { delegateId: options.delegateId } }),
    });
  /** `line` with `extra` put into its nonce and the checksum made right again (the signature is not). */
  const longerNonce = (line: string, extra: string) => {
    const fields = line.split('/');
    fields[fields.length - 4] += extra;
    const signature = fields.at(-2)!;
    fields[fields.length - 1] = holaChecksum(`${fields.slice(0, -2).join('/')}/`, signature);
    return fields.join('/');
  };
  const failureOf = (line: string) => {
    const result = parse(line);
    return result.ok ? 'parsed' : `${result.failure.reasonCode}: ${result.failure.message}`;
  };

  it.each([
    [undefined, 'hola is missing: the body is a JSON object, {"hola": "<line>"}.'],
    [null, 'hola must be a string, not null.'],
    [5, 'hola must be a string, not a number.'],
    [true, 'hola must be a string, not a boolean.'],
  ])('hola %p is refused as invalid_format saying what was sent', (input, message) => {
    expect(failureOf(input as unknown as string)).toBe(`invalid_format: ${message}`);
  });

  it('a line of 512 characters parses; one of 513 is refused as too long', () => {
    const short = build('AB');
    const line = build('AB'.padEnd(2 + 512 - short.length, 'C'));
    expect(line.length).toBe(512);
    expect(failureOf(line)).toBe('parsed');
    expect(failureOf(longerNonce(line, 'D'))).toBe('invalid_format: hola is longer than 512 characters.');
  });

  it('a delegate id of 128 characters parses; one of 129 is refused', () => {
    const line = build('AB', { delegateId: 'd'.repeat(128) });
    const result = parse(line);
    expect(result.ok && result.line.delegateId).toBe('D'.repeat(128));
    const fields = line.split('/');
    fields[2] += 'D';
    fields[fields.length - 1] = holaChecksum(`${fields.slice(0, -2).join('/')}/`, fields.at(-2)!);
    expect(failureOf(fields.join('/'))).toBe('invalid_format: The delegate id must be 1 to 128 characters.');
  });

  it.each(['MUNDOX', 'MUNDOS', 'MUND', 'XMUNDO', 'MUNDO0', 'M', 'X'])(
    'a recipient %s (only MUNDO itself, empty or a token id) is refused with the checksum right',
    (recipient) => {
      const line = build('AB').replace('HOLA/MUNDO/', `HOLA/${recipient}/`);
      const fields = line.split('/');
      fields[fields.length - 1] = holaChecksum(`${fields.slice(0, -2).join('/')}/`, fields.at(-2)!);
      expect(failureOf(fields.join('/'))).toBe(
        'invalid_format: The recipient must be MUNDO, empty, or a 12-letter token id.',
      );
    },
  );
});

describe("field count and the builder's recipient (a mutation probe)", () => {
  const signer = createNobleSigner(new Uint8Array(32).fill(5));
  const params = {
    senderTokenId: 'bcdefghijklm',
    timestamp: '2026-11-27T10:00:00.000Z',
    nonceHex: 'AB12',
    serviceHost,
    signer,
  };

  it.each([
    ['the timestamp', 5],
    ['the public key', 4],
    ['the issuer', 3],
  ])(
    'a subagent line without %s has 9 fields: invalid_format for the count, before its signature slot is read',
    (_what, index) => {
      const fields = buildHolaLine({ ...params, subagent: { delegateId: 'agent-1' } }).split('/');
      fields.splice(index, 1);
      fields[fields.length - 2] = 'SIGNATURE';
      fields[fields.length - 1] = holaChecksum(`${fields.slice(0, -2).join('/')}/`, 'SIGNATURE');
      const result = parse(fields.join('/'));
      expect(result.ok ? 'parsed' : `${result.failure.reasonCode}: ${result.failure.message}`).toBe(
        'invalid_format: hola has 9 slash-separated fields; expected 8 (standard) or 10 (subagent).',
      );
    },
  );

  it('an empty recipient builds the MUNDO line (empty means MUNDO, as the parser reads it)', () => {
    const line = buildHolaLine({ ...params, recipient: '' });
    expect(line).toBe(buildHolaLine(params));
    expect(line.startsWith('HOLA/MUNDO/BCDEFGHIJKLM/')).toBe(true);
  });
});

// --- property tests ---------------------------------------------------------------------------------
const LETTER = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'.split(''));
const tokenId = fc.array(LETTER, { minLength: 12, maxLength: 12 }).map((a) => a.join(''));
const hexNonce = fc
  .array(fc.constantFrom(...'0123456789ABCDEF'.split('')), { minLength: 1, maxLength: 64 })
  .map((a) => a.join(''));
const isoTimestamp = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const delegateId = fc
  .array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-'.split('')), {
    minLength: 1,
    maxLength: 128,
  })
  .map((a) => a.join(''));
const lineParams = fc.record({
  seed: fc.uint8Array({ minLength: 32, maxLength: 32 }),
  recipient: fc.option(tokenId, { nil: undefined }),
  senderTokenId: tokenId,
  timestamp: isoTimestamp,
  nonceHex: hexNonce,
  subagent: fc.option(fc.record({ delegateId }), { nil: undefined }),
});

describe('properties', () => {
  it('build → parse returns the fields', () => {
    fc.assert(
      fc.property(lineParams, (p) => {
        const signer = createNobleSigner(p.seed);
        const result = parse(buildHolaLine({ ...p, serviceHost, signer }));
        if (!result.ok) throw new Error(result.failure.message);
        const line = result.line;
        expect(line.form).toBe(p.subagent ? 'subagent' : 'standard');
        expect(line.recipient).toBe(p.recipient ? p.recipient.toUpperCase() : 'MUNDO');
        expect(line.senderTokenId).toBe(p.senderTokenId);
        expect(line.timestamp).toBe(p.timestamp);
        expect(line.timestampMs).toBe(Date.parse(p.timestamp));
        expect(line.nonceHex).toBe(p.nonceHex);
        if (p.subagent) {
          expect(line.delegateId).toBe(p.subagent.delegateId.toUpperCase());
          expect(line.subagentPublicKey).toEqual(signer.publicKey);
        }
        expect(noble.verify(line.signature, utf8(line.signedPrefix), signer.publicKey)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('flipping any one character of a valid line never yields a verified result', () => {
    const CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567890abcdefghijklmnopqrstuvwxyz/=:.-+ '.split('');
    fc.assert(
      fc.property(lineParams, fc.nat(), fc.constantFrom(...CHARS), (p, position, replacement) => {
        const signer = createNobleSigner(p.seed);
        const line = buildHolaLine({ ...p, serviceHost, signer });
        const index = position % line.length;
        const mutated = line.slice(0, index) + replacement + line.slice(index + 1);
        if (mutated.toUpperCase() === line.toUpperCase()) return; // the same line: lines are case-insensitive
        const result = parse(mutated);
        if (!result.ok) return;
        const key = result.line.form === 'subagent' ? result.line.subagentPublicKey! : signer.publicKey;
        expect(noble.verify(result.line.signature, utf8(result.line.signedPrefix), key)).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('never throws on arbitrary strings up to 4 KiB or arbitrary JSON values', () => {
    const holaish = fc
      .array(fc.constantFrom(...'HOLA/MUNDO0123456789ABCDEF-:TZ.+=<>[]{}()SIGNATURE '.split('')), {
        maxLength: 600,
      })
      .map((a) => 'HOLA/' + a.join(''));
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 4096, unit: 'binary' }), holaish, fc.jsonValue(), fc.anything()),
        (input) => {
          const result = parse(input);
          expect(typeof result.ok).toBe('boolean');
          if (!result.ok) expect(HOLA_REASON_CODES).toContain(result.failure.reasonCode);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('never throws on valid lines with random edits', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...vectors.valid.map((v) => v.line)),
        fc.array(fc.tuple(fc.nat(), fc.string({ maxLength: 3 })), { maxLength: 6 }),
        (line, edits) => {
          let text = line;
          for (const [at, insert] of edits) {
            const i = at % (text.length + 1);
            text = text.slice(0, i) + insert + text.slice(i + 1);
          }
          expect(typeof parse(text).ok).toBe('boolean');
        },
      ),
      { numRuns: 1000 },
    );
  });
});
