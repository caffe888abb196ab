import fc from 'fast-check';
import vectorFile from '../../test-vectors/dn.json' with { type: 'json' };
import {
  DN_MAX_LENGTH,
  escapeDnValue,
  isDnFullyParsed,
  formatDn,
  isContactUri,
  parseDn,
  type DnAttribute,
} from './dn.parser.js';

// From a conformance audit (docs/protocol.md §4, DN: names hold letters, digits, - and _; a value may be
// double-quoted; one odd component never loses the holder's name).
describe('parseDn: quotes only open a value, names may start with -', () => {
  it('keeps an attribute whose name starts with "-"', () => {
    const dn = parseDn('NNSWF=Ada,-Team=x');
    expect(dn?.attributes).toEqual([
      { name: 'NNSWF', value: 'Ada' },
      { name: '-Team', value: 'x' },
    ]);
    expect(dn?.unparsed).toEqual([]);
  });

  it('reads a quote inside an unquoted value as text: an inch mark does not swallow the components after it', () => {
    const dn = parseDn('Height=5\'11",NNSWF=Ada,NSWF=Lovelace,Reach=70"');
    expect(dn?.displayName).toBe('Ada Lovelace');
    expect(dn?.attributes).toEqual([
      { name: 'Height', value: '5\'11"' },
      { name: 'NNSWF', value: 'Ada' },
      { name: 'NSWF', value: 'Lovelace' },
      { name: 'Reach', value: '70"' },
    ]);
  });

  it('still reads a quoted value with commas, after whitespace too, and an unclosed quote as text', () => {
    expect(parseDn('NNSWF= "Smith, John" ,Creature=robot')?.attributes).toEqual([
      { name: 'NNSWF', value: 'Smith, John' },
      { name: 'Creature', value: 'robot' },
    ]);
    expect(parseDn('NNSWF="Smith, John,Creature=robot')).toMatchObject({
      attributes: [
        { name: 'NNSWF', value: '"Smith' },
        { name: 'Creature', value: 'robot' },
      ],
      unparsed: ['John'],
    });
    expect(parseDn('A=x"y,B="p,q"')?.attributes).toEqual([
      { name: 'A', value: 'x"y' },
      { name: 'B', value: 'p,q' },
    ]);
  });
});

// A probe of the rule above: a quote where a value starts was paired with the next quote anywhere later,
// even inside a later value, so an unclosed one swallowed the components up to it (and the display name).
describe('parseDn: a quote opening a value is closed only at the end of that value', () => {
  it('does not pair an unclosed opening quote with a quote inside a later value', () => {
    const dn = parseDn('Nick="Ace,NNSWF=Ada,NSWF=Lovelace,Motto="Hi"');
    expect(dn?.displayName).toBe('Ada Lovelace');
    expect(dn?.attributes).toEqual([
      { name: 'Nick', value: '"Ace' },
      { name: 'NNSWF', value: 'Ada' },
      { name: 'NSWF', value: 'Lovelace' },
      { name: 'Motto', value: 'Hi' },
    ]);
  });

  it('still reads a quoted value with commas, and one followed by whitespace', () => {
    expect(parseDn('NNSWF="Smith, John" ,Motto="a, b"')?.attributes).toEqual([
      { name: 'NNSWF', value: 'Smith, John' },
      { name: 'Motto', value: 'a, b' },
    ]);
  });
});

// A review: the splitter kept a value's opening quote as text, but the component's reading still stripped it.
describe('a quote that opens no quoted value', () => {
  it('is kept as text in the value, as the splitter read it', () => {
    expect(parseDn('Title="The" Best",NNSWF=Ada')?.attributes[0]).toEqual({
      name: 'Title',
      value: '"The" Best"',
    });
  });
});

describe('parseDn: refusals (null)', () => {
  it.each([
    ['not a string', 42],
    ['undefined', undefined],
    ['empty', ''],
    ['only separators and spaces', ' , ,  '],
    ['only a component without =', 'Lovelace'],
    ['an empty attribute name', '=Ada'],
    ['an attribute name with a space inside', 'Contact URI=x:y:z'],
    ['an attribute name starting with a dot', '.x=y'],
    ['an escaped character in the name', 'N\\,SWF=x'],
    ['a dangling backslash', 'Creature=cat\\'],
    ['hex escapes that are not UTF-8', 'Creature=\\ff\\fe'],
    ['a truncated UTF-8 sequence', 'Creature=\\c3'],
  ])('%s', (_label, input) => {
    expect(parseDn(input)).toBeNull();
  });

  it('refuses more than 2048 characters and accepts exactly 2048', () => {
    const base = 'Creature=';
    const exact = base + 'x'.repeat(DN_MAX_LENGTH - base.length);
    expect(exact).toHaveLength(2048);
    expect(parseDn(exact)?.creature).toHaveLength(2048 - base.length);
    expect(parseDn(exact + 'x')).toBeNull();
  });
});

describe('parseDn: reading', () => {
  it('reads the known attributes and keeps the others', () => {
    const dn = parseDn(
      'NNSWF=Ada, NSWF=Lovelace,Creature=cat,AvatarURL=https://a.example/p.png?x=1,EmojiURL=https://e.example/e.svg,' +
        'ContactURI=mailto:example.org:ada,ContactURI=tg:t.me:ada,ContactURI=broken,Team=Analytical Engines',
    );
    expect(dn).toEqual({
      displayName: 'Ada Lovelace',
      nnswf: 'Ada',
      nswf: 'Lovelace',
      creature: 'cat',
      avatarUrl: 'https://a.example/p.png?x=1',
      emojiUrl: 'https://e.example/e.svg',
      contactUris: ['mailto:example.org:ada', 'tg:t.me:ada'],
      attributes: [
        { name: 'NNSWF', value: 'Ada' },
        { name: 'NSWF', value: 'Lovelace' },
        { name: 'Creature', value: 'cat' },
        { name: 'AvatarURL', value: 'https://a.example/p.png?x=1' },
        { name: 'EmojiURL', value: 'https://e.example/e.svg' },
        { name: 'ContactURI', value: 'mailto:example.org:ada' },
        { name: 'ContactURI', value: 'tg:t.me:ada' },
        { name: 'ContactURI', value: 'broken' },
        { name: 'Team', value: 'Analytical Engines' },
      ],
      unparsed: [],
    });
  });

  it('reads names with _ and digits, as real passports write them (webhook_url=…)', () => {
    const dn = parseDn('NNSWF=Ada,webhook_url=https://hooks.example/a?b=c,x500_2=y,2.5.4.3=Ada');
    expect(dn?.attributes).toEqual([
      { name: 'NNSWF', value: 'Ada' },
      { name: 'webhook_url', value: 'https://hooks.example/a?b=c' },
      { name: 'x500_2', value: 'y' },
      { name: '2.5.4.3', value: 'Ada' },
    ]);
    expect(dn?.unparsed).toEqual([]);
  });

  it('reads double-quoted values: commas inside are text, the quotes go, the inside is kept as is', () => {
    const dn = parseDn('NNSWF="Smith, John", NSWF=" Jr. ",Creature=robot,Note="a \\"b\\" c"');
    expect(dn).toMatchObject({
      nnswf: 'Smith, John',
      nswf: ' Jr. ',
      displayName: 'Smith, John  Jr. ',
      creature: 'robot',
    });
    expect(dn?.attributes.at(-1)).toEqual({ name: 'Note', value: 'a "b" c' });
    // An unbalanced quote is a plain character and does not swallow the rest.
    expect(parseDn('NNSWF=5" tall,Creature=cat')).toMatchObject({
      nnswf: '5" tall',
      creature: 'cat',
      unparsed: [],
    });
    // Quotes inside a value are kept as written.
    expect(parseDn('Team=the "A" team')?.attributes).toEqual([{ name: 'Team', value: 'the "A" team' }]);
    // Escaped quotes at both ends are text, not quoting: they stay (a mutation probe: no test had them).
    expect(parseDn('Creature=\\"robot\\"')?.creature).toBe('"robot"');
    expect(parseDn('Creature=\\"robot"')?.creature).toBe('"robot"');
  });

  it('one component it cannot read never nulls the DN: it is set aside, as written', () => {
    for (const [text, unparsed] of [
      ['NNSWF=Ada,Lovelace,Creature=owl', ['Lovelace']],
      ['NNSWF=Ada, Contact URI=x:y:z ,Creature=owl', ['Contact URI=x:y:z']],
      ['NNSWF=Ada,N\\,SWF=x,Creature=owl', ['N\\,SWF=x']],
      ['NNSWF=Ada,Creature=owl,Avatar=\\ff', ['Avatar=\\ff']],
      ['NNSWF=Ada,Creature=owl,Tail=\\', ['Tail=\\']],
    ] as const) {
      const dn = parseDn(text);
      expect([text, dn?.displayName, dn?.creature, dn?.unparsed]).toEqual([text, 'Ada', 'owl', unparsed]);
      expect(isDnFullyParsed(text)).toBe(false);
    }
    expect(isDnFullyParsed('NNSWF="Smith, John",webhook_url=https://h.example')).toBe(true);
    expect(isDnFullyParsed('')).toBe(false);
  });

  it('uses one name alone as the display name; none → null; empty values → null', () => {
    expect(parseDn('NSWF=Lovelace')?.displayName).toBe('Lovelace');
    expect(parseDn('NNSWF=Ada')?.displayName).toBe('Ada');
    expect(parseDn('Creature=cat')?.displayName).toBeNull();
    expect(parseDn('Creature=, NNSWF=')).toMatchObject({ creature: null, displayName: null });
  });

  it('matches names case-insensitively and takes the first of repeated single attributes', () => {
    expect(parseDn('creature=cat,CREATURE=dog')?.creature).toBe('cat');
  });

  it('resolves escapes: \\, \\= \\\\ \\<space> and UTF-8 hex runs', () => {
    const dn = parseDn('NNSWF=Lovelace\\, Ada,Creature=\\e7\\8c\\ab,AvatarURL=a\\=b\\\\c,EmojiURL=\\ x\\ ');
    expect(dn).toMatchObject({
      nnswf: 'Lovelace, Ada',
      creature: '猫',
      avatarUrl: 'a=b\\c',
      emojiUrl: ' x ',
    });
    expect(parseDn('Creature=\\41\\42')?.creature).toBe('AB');
    expect(parseDn('Creature=\\4x')?.creature).toBe('4x'); // one hex digit: plain escape of "4"
  });

  it('trims unescaped whitespace and skips empty components', () => {
    expect(parseDn('  Creature =  cat  ,, ')?.attributes).toEqual([{ name: 'Creature', value: 'cat' }]);
  });

  it('checks the ContactURI form scheme:authority:identifier', () => {
    expect(isContactUri('xmpp:example.org:ada:work')).toBe(true);
    expect(isContactUri('mailto::ada')).toBe(false);
    expect(isContactUri('mailto:example.org:')).toBe(false);
    expect(isContactUri('1x:a:b')).toBe(false);
  });
});

describe('formatDn', () => {
  it('escapes separators, backslashes and boundary whitespace', () => {
    expect(escapeDnValue(' a,b=c\\d ')).toBe('\\ a\\,b\\=c\\\\d\\ ');
    expect(
      formatDn([
        { name: 'NNSWF', value: 'x' },
        { name: 'Creature', value: 'y,z' },
      ]),
    ).toBe('NNSWF=x,Creature=y\\,z');
  });

  it('refuses invalid attribute names', () => {
    expect(() => formatDn([{ name: 'bad name', value: 'x' }])).toThrow(RangeError);
  });
});

describe('parseDn properties', () => {
  it('never throws on any input', () => {
    const dnish = fc.stringMatching(/^[A-Za-z0-9=,\\ \u00e9\u732b]*$/, { maxLength: 80 });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), dnish, fc.anything()), (input) => {
        const dn = parseDn(input);
        return dn === null || Array.isArray(dn.attributes);
      }),
      { numRuns: 2000 },
    );
  });

  // From a mutation probe: dropping the refusal of escapes in a name passed, every escaped name in the
  // tests above decoding to a character no name may hold anyway (`N\\,SWF`).
  it('a name written with an escape is unreadable, though it would decode to a known name', () => {
    for (const text of ['NNSWF=Ada,Creatur\\65=cat', 'NNSWF=Ada,Creatur\\e=cat']) {
      const dn = parseDn(text);
      expect([text, dn?.creature, dn?.unparsed]).toEqual([text, null, [text.slice(10)]]);
      expect(isDnFullyParsed(text)).toBe(false);
    }
    expect(parseDn('NNSW\\46=Eve')).toBeNull();
  });

  it('a readable DN keeps its attributes when an unreadable component is added anywhere', () => {
    const attribute = fc.record({
      name: fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_-]{0,10}$/),
      value: fc.string({ unit: 'grapheme', maxLength: 20 }),
    });
    const junk = fc.constantFrom('no equals sign', 'bad name=x', 'x=\\ff', '=value');
    fc.assert(
      fc.property(
        fc.array(attribute, { minLength: 1, maxLength: 6 }),
        junk,
        fc.nat(),
        (attributes, bad, at) => {
          const parts = attributes.map((a) => formatDn([a]));
          parts.splice(at % (parts.length + 1), 0, bad);
          const dn = parseDn(parts.join(','));
          expect(dn?.attributes).toEqual(attributes);
          expect(dn?.unparsed).toEqual([bad]);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('round-trips through formatDn for any values', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,15}$/);
    const attribute = fc.record({
      name,
      value: fc.oneof(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.string({ unit: 'binary', maxLength: 40 }),
      ),
    });
    fc.assert(
      fc.property(fc.array(attribute, { minLength: 1, maxLength: 10 }), (attributes: DnAttribute[]) => {
        expect(parseDn(formatDn(attributes))?.attributes).toEqual(attributes);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('parseDn vectors (test-vectors/dn.json)', () => {
  it.each(vectorFile.cases.map((c) => [c.name, c]))('%s', (_name, c) => {
    const dn = parseDn(c.input);
    if (c.expected === null) {
      expect(dn).toBeNull();
      return;
    }
    expect(dn).not.toBeNull();
    expect({
      displayName: dn!.displayName,
      creature: dn!.creature,
      avatarUrl: dn!.avatarUrl,
      emojiUrl: dn!.emojiUrl,
      contactUris: dn!.contactUris,
    }).toEqual(c.expected);
  });
});
