/**
 * Pooled UTF-8 gives exactly the bytes TextEncoder gives, for any text (ASCII from a slab, the rest
 * and long texts from buffers of their own), and views handed out earlier never change afterwards.
 */
import fc from 'fast-check';
import { utf8Pooled } from './utf8-pooled.codec.js';
import { utf8 } from './utf8.codec.js';

const asciiText = fc.string({
  unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
  maxLength: 300,
});

describe('utf8Pooled', () => {
  it('property: equals utf8 on any text (lone surrogates and astral characters included)', () => {
    fc.assert(
      fc.property(
        fc.oneof(asciiText, fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 1500 })),
        (text) => {
          expect(utf8Pooled(text)).toEqual(utf8(text));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('property: every view keeps its bytes while later texts are encoded (across slabs)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(asciiText, fc.string({ maxLength: 40 })), { minLength: 1, maxLength: 300 }),
        (texts) => {
          const views = texts.map((text) => utf8Pooled(text));
          views.forEach((view, i) => expect(view).toEqual(utf8(texts[i])));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('shares a slab among short ASCII texts, and gives long or non-ASCII ones a buffer of their own', () => {
    const first = utf8Pooled('HOLA/MUNDO/');
    const second = utf8Pooled('HOLA/MUNDO/');
    expect(second.buffer).toBe(first.buffer);
    expect(second.byteOffset).toBeGreaterThanOrEqual(first.byteOffset + first.length);
    const long = utf8Pooled('A'.repeat(1025));
    expect(long.buffer.byteLength).toBe(1025);
    const accented = utf8Pooled('straße');
    expect(accented.buffer.byteLength).toBe(7);
  });
});
