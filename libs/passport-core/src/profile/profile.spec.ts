import fc from 'fast-check';
import { PassportError } from '../errors/passport.error.js';
import { type PageRequest } from '../ports/chain-reader.port.js';
import { isTokenId } from '../token-id/token-id.js';
import { type PassportRecord } from '../passport/passport.types.js';
import { decodeFace } from '../token-id/face.decoder.js';
import {
  AGENTS_CHAIN_READ_MAX,
  AGENTS_PAGE_MAX_READS,
  AGENTS_DEFAULT_LIMIT,
  AGENTS_PAGE_MAX_SKIPPED,
  agentListItem,
  listAgentsPage,
  parseAgentsQuery,
} from './agent-listing.js';
import { SELF_DECLARED_DISCLAIMER } from './disclaimer.js';
import { buildFullIdentity, buildOwnIdentity } from './full-identity.js';
import { profileText } from './profile-links.js';
import { buildPublicProfile, unavailableProfile } from './public-profile.js';

const dn =
  'NNSWF=Ada,NSWF=Lovelace,Creature=owl,ContactURI=mailto:example.org:ada,AvatarURL=https://a.example/a.png,EmojiURL=https://e.example/e.svg';
const rec = (
  tokenId: string,
  metadata: PassportRecord['metadata'] = {},
  ownerId = 'a'.repeat(64),
): PassportRecord => ({
  tokenId,
  ownerId,
  contractId: 'passport.test',
  metadata,
  revoked: false,
});

describe('buildPublicProfile', () => {
  it('fills every field of the spec table from the record, DN and token id', () => {
    const profile = buildPublicProfile(
      rec('bjbvcjzqbdsj', { userselected_dn: dn, webhook_url: 'https://hooks.example' }),
    );
    expect(profile).toEqual({
      tokenId: 'bjbvcjzqbdsj',
      did: 'did:passport:bjbvcjzqbdsj',
      ownerAccountId: 'a'.repeat(64),
      displayName: 'Ada Lovelace',
      creature: 'owl',
      contactUris: ['mailto:example.org:ada'],
      avatarUrl: 'https://a.example/a.png',
      emojiUrl: 'https://e.example/e.svg',
      webhookUrl: 'https://hooks.example',
      face: decodeFace('bjbvcjzqbdsj'),
    });
    expect(profile.face?.checksumValid).toBe(true);
    expect('error' in profile).toBe(false);
  });

  it('answers nulls and [] for a passport without DN or webhook, and a null face for an undecodable id', () => {
    const profile = buildPublicProfile(
      rec('oooooooooooo', { userselected_dn: 'garbage', webhook_url: '' }, ''),
    );
    expect(profile).toMatchObject({
      ownerAccountId: null,
      displayName: null,
      creature: null,
      contactUris: [],
      avatarUrl: null,
      emojiUrl: null,
      webhookUrl: null,
      face: null,
    });
  });

  // Found by a probe: the profile is the sanitised one (spec), yet a passport holder could have
  // `javascript:` or `data:` URLs rendered from it by any page that shows avatars or contact links.
  it.each([
    ['javascript:alert(1)'],
    ['JavaScript:alert(1)'],
    [' javascript:alert(1)'],
    ['data:image/svg+xml,<svg onload=alert(1)>'],
    ['vbscript:msgbox'],
    ['file:///etc/passwd'],
    ['ftp://a.example/a.png'],
    ['//a.example/a.png'],
    ['not a url'],
  ])('drops an avatar, emoji or webhook URL that is not http(s): %j', (url) => {
    const profile = buildPublicProfile(
      rec('bjbvcjzqbdsj', {
        userselected_dn: `NNSWF=Ada,AvatarURL=${url.replace(/,/g, '\\,')},EmojiURL=${url.replace(/,/g, '\\,')}`,
        webhook_url: url,
      }),
    );
    expect(profile).toMatchObject({ displayName: 'Ada', avatarUrl: null, emojiUrl: null, webhookUrl: null });
  });

  it('keeps contact URIs of any scheme but those a browser runs or reads locally', () => {
    const profile = buildPublicProfile(
      rec('bjbvcjzqbdsj', {
        userselected_dn:
          'NNSWF=Ada,ContactURI=mailto:example.org:ada,ContactURI=javascript:alert(1)//:x,ContactURI=discord:server:ada,' +
          'ContactURI=DATA:text/html:PHNjcmlwdD4,ContactURI=VBScript:x:y,ContactURI=file:host:x,ContactURI=blob:a.example:1,' +
          'ContactURI=telegram:t.me:ada',
      }),
    );
    expect(profile.contactUris).toEqual([
      'mailto:example.org:ada',
      'discord:server:ada',
      'telegram:t.me:ada',
    ]);
  });

  // Found by a probe: search-ms: (a remote share) and ms-msdt: (the Follina handler) links survived.
  it('leaves out contact URIs of handlers that open local programs or remote shares', () => {
    const profile = buildPublicProfile(
      rec('bjbvcjzqbdsj', {
        userselected_dn:
          'NNSWF=Ada,ContactURI=search-ms:query=x&crumb=location:\\\\evil.example\\share,ContactURI=ms-msdt:/id:x,' +
          'ContactURI=MS-OfficeCmd:x:y,ContactURI=shell:x:y,ContactURI=smb:evil.example:share,ContactURI=mailto:example.org:ada,' +
          'ContactURI=hcp:x:y,ContactURI=mk:@MSITStore:x,ContactURI=view-source:a:b,ContactURI=vscode:x:y,' +
          'ContactURI=itms-services:x:y,ContactURI=x-apple.systempreferences:x:y,ContactURI=discord:server:ada',
      }),
    );
    expect(profile.contactUris).toEqual(['mailto:example.org:ada', 'discord:server:ada']);
  });

  // Found by a probe: a Cyrillic host ("раураl.com") was shown as written, looking like another site.
  it('shows an avatar URL whose host is in another script as punycode; ASCII URLs as written', () => {
    const profile = buildPublicProfile(
      rec('bjbvcjzqbdsj', {
        userselected_dn: 'NNSWF=Ada,AvatarURL=https://раураl.com/a.png,EmojiURL=https://Example.com/e.png',
      }),
    );
    expect(profile.avatarUrl).toBe('https://xn--l-7sba6dbr.com/a.png');
    expect(profile.emojiUrl).toBe('https://Example.com/e.png');
  });

  // Found by a probe: a DN's hex escapes wrote CR/LF, ESC sequences and bidi overrides into the
  // "sanitised" profile (and verify's includeProfile, the agents listing, the DID's #webhook), and
  // URLs kept CR/LF and credentials.
  it('replaces the characters that rewrite how a name is shown, and keeps a zero-width joiner', () => {
    const profile = buildPublicProfile(
      rec('bjbvcjzqbdsj', {
        userselected_dn:
          'NNSWF=Eve\\0d\\0aX-Injected: 1,NSWF=\\e2\\80\\aegnp.exe,Creature=\\1b[2J\\1b[31mOWNED\\00,' +
          'ContactURI=https:evil.example:x\\0d\\0aSet-Cookie: y,ContactURI=discord:server:ada \\e2\\80\\8d',
      }),
    );
    expect(profile.displayName).toBe('Eve\ufffd\ufffdX-Injected: 1 \ufffdgnp.exe');
    expect(profile.creature).toBe('\ufffd[2J\ufffd[31mOWNED\ufffd');
    expect(profile.contactUris).toEqual(['discord:server:ada \u200d']);
    // A review: zero-width spaces, soft hyphens and tag characters (text invisible to a reader) too.
    const hidden = buildPublicProfile(
      rec('bjbvcjzqbdsj', { userselected_dn: 'NNSWF=a\\e2\\80\\8bb\\c2\\adc\\f3\\a0\\81\\81d\\e2\\80\\8ce' }),
    );
    expect(hidden.displayName).toBe('a\ufffdb\ufffdc\ufffdd\u200ce');
    // Probes: variation selectors (U+E0100…, one after each ideograph too) spelt out a hidden
    // instruction: they are removed (the characters show in their default form); blank fillers and
    // stacked combining marks passed too. An emoji's own U+FE0F stays.
    expect(profileText('Ada\u{e0131}\u{e0132}\ufe01 \u3164\u2800\u034f❤\ufe0f\ufe0f')).toBe(
      'Ada \ufffd\ufffd\ufffd❤\ufe0f',
    );
    expect(profileText('一\u{e0149}一\u{e0167}一\u{e016e}')).toBe('一一一');
    expect(profileText(`e${'\u0301'.repeat(50)}x`)).toBe(`e${'\u0301'.repeat(8)}x`);
    // A second review: runs of zero-width joiners (a classic hidden alphabet), unassigned ignorables,
    // Mongolian and Khmer invisible marks; marks interleaved with joiners; emoji sequences stay, a
    // Japanese name shows its ideographs in their default form.
    expect(profileText('a\u200d\u200db\u{e01f5}\u180b\u17b4\ufff0c')).toBe('a\ufffdb\ufffd\ufffd\ufffdc');
    expect(profileText(`e${'\u0301\u200d'.repeat(20)}x`)).toBe(`e${'\u0301\u200d'.repeat(8)}x`);
    expect(profileText('葛\u{e0100}城 👨\u200d👩\u200d👧 ❤\ufe0f 1\ufe0f\u20e3')).toBe(
      '葛城 👨\u200d👩\u200d👧 ❤\ufe0f 1\ufe0f\u20e3',
    );
    expect(agentListItem(rec('bjbvcjzqbdsj', { userselected_dn: 'Creature=a\\0ab' })).creature).toBe(
      'a\ufffdb',
    );
  });

  it.each([
    ['https://ok.example/\r\nSet-Cookie: x'],
    ['https://ok.example/a b'],
    ['https://ok.example/\u202egnp.png'],
    ['https://user:pass@ok.example/a.png'],
    ['https://user@ok.example/a.png'],
    ['https://ok.\u0000example/'],
  ])('drops a URL holding controls, whitespace or credentials: %j', (url) => {
    const profile = buildPublicProfile(rec('bjbvcjzqbdsj', { webhook_url: url }));
    expect(profile.webhookUrl).toBeNull();
  });

  it('property: no profile text or link holds a display control, whatever the DN', () => {
    const controls = fc.constantFrom(
      '\r',
      '\n',
      '\u001b',
      '\u0000',
      '\u202e',
      '\u2066',
      '\u2028',
      '\ud800',
      'a',
      ',',
      '=',
      ':',
      '/',
    );
    const text = fc
      .array(fc.oneof(controls, fc.string({ maxLength: 3 })), { maxLength: 20 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, text, text, (name, creature, url) => {
        const escaped = (value: string) => value.replace(/[\\,]/g, '\\$&');
        const profile = buildPublicProfile(
          rec('bjbvcjzqbdsj', {
            userselected_dn: `NNSWF=${escaped(name)},Creature=${escaped(creature)},AvatarURL=https://a.example/${escaped(url)},ContactURI=x:y:${escaped(url)}`,
            webhook_url: `https://h.example/${url}`,
          }),
        );
        const shown = [
          profile.displayName,
          profile.creature,
          profile.avatarUrl,
          profile.webhookUrl,
          ...profile.contactUris,
        ];
        for (const value of shown)
          expect(value ?? '').not.toMatch(/[\p{Cc}\p{Cs}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u);
      }),
    );
  });

  it('marks an unavailable profile with error and keeps what the token id tells', () => {
    expect(unavailableProfile('bjbvcjzqbdsj')).toMatchObject({
      tokenId: 'bjbvcjzqbdsj',
      did: 'did:passport:bjbvcjzqbdsj',
      error: 'profile_unavailable',
      face: decodeFace('bjbvcjzqbdsj'),
    });
  });
});

describe('full and own identity', () => {
  it('full identity: {tokenId, dn, face, contactUris, metadata, disclaimer}', () => {
    const full = buildFullIdentity(
      rec('bjbvcjzqbdsj', { userselected_dn: dn, webhook_url: 'https://h.example', not_after: '' }),
    );
    expect(Object.keys(full)).toEqual(['tokenId', 'dn', 'face', 'contactUris', 'metadata', 'disclaimer']);
    expect(full.dn?.displayName).toBe('Ada Lovelace');
    expect(full.contactUris).toEqual(['mailto:example.org:ada']);
    expect(full.metadata).toEqual({ not_after: '', userselected_dn: dn, webhook_url: 'https://h.example' });
    expect(full.disclaimer).toBe(SELF_DECLARED_DISCLAIMER);
    expect(buildFullIdentity(rec('bjbvcjzqbdsj')).dn).toBeNull();
  });

  it('own identity: notAfter as ISO, null when unbounded or unreadable', () => {
    expect(buildOwnIdentity(rec('bjbvcjzqbdsj', { not_after: '2030-01-01T00:00:00Z' })).notAfter).toBe(
      '2030-01-01T00:00:00.000Z',
    );
    expect(buildOwnIdentity(rec('bjbvcjzqbdsj', { not_after: '' })).notAfter).toBeNull();
    expect(buildOwnIdentity(rec('bjbvcjzqbdsj', { not_after: 'soon' })).notAfter).toBeNull();
    expect(buildOwnIdentity(rec('bjbvcjzqbdsj', { not_after: '0' })).notAfter).toBeNull();
  });
});

describe('agents listing', () => {
  const expectBadQuery = (query: Record<string, unknown>, parameter: string) => {
    let thrown: unknown;
    try {
      parseAgentsQuery(query);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PassportError);
    expect(thrown).toMatchObject({ code: 'INVALID_QUERY_PARAMETER', details: { parameter } });
  };

  it.each([
    ['0'],
    ['101'],
    ['-1'],
    ['1.5'],
    ['ten'],
    [' 5'],
    ['1e2'],
    [['5', '6']],
    [''],
    [0],
    [101],
    [2.5],
    [null],
  ])('refuses limit %j', (limit) => expectBadQuery({ limit }, 'limit'));

  it.each([['-1'], ['x'], ['1.0'], [['0']], [-3], ['99999999999999999']])('refuses cursor %j', (cursor) =>
    expectBadQuery({ cursor }, 'cursor'),
  );

  it('defaults to offset 0 and limit 20, and accepts strings or numbers', () => {
    expect(parseAgentsQuery({})).toEqual({ offset: 0, limit: AGENTS_DEFAULT_LIMIT });
    expect(parseAgentsQuery({ limit: '100', cursor: '40' })).toEqual({ offset: 40, limit: 100 });
    expect(parseAgentsQuery({ limit: 1, cursor: '' })).toEqual({ offset: 0, limit: 1 });
    expect(parseAgentsQuery({ limit: '07', owner: 'ignored' } as Record<string, unknown>)).toEqual({
      offset: 0,
      limit: 7,
    });
  });

  /** A chain listing over `records` that counts its reads. */
  const listingOf = (records: PassportRecord[]) => {
    const reads: PageRequest[] = [];
    const list = async (page: PageRequest) => {
      reads.push(page);
      return records.slice(page.fromIndex, page.fromIndex + page.limit);
    };
    return { list, reads };
  };
  const root = (id: string) => rec(`bc=local;sc=passport.test;id=${id}`);

  it('reads limit + 1 records and sets nextCursor only when more exist', async () => {
    const records = [
      ...['a', 'b', 'c', 'd'].map(root),
      rec('bjbvcjzqbdsj', { userselected_dn: 'Creature=owl' }),
      rec('lhsrldbjsnlh'),
      rec('chbvcnurbkuw'),
    ];
    const { list, reads } = listingOf(records);
    const page = await listAgentsPage(list, parseAgentsQuery({ limit: '2', cursor: '4' }));
    expect(reads).toEqual([{ fromIndex: 4, limit: 3 }]);
    expect(page).toEqual({
      agents: [
        { tokenId: 'bjbvcjzqbdsj', creature: 'owl', face: decodeFace('bjbvcjzqbdsj') },
        { tokenId: 'lhsrldbjsnlh', creature: null, face: decodeFace('lhsrldbjsnlh') },
      ],
      nextCursor: '6',
      disclaimer: SELF_DECLARED_DISCLAIMER,
    });
    expect(
      (
        await listAgentsPage(
          listingOf(records.slice(0, 6)).list,
          parseAgentsQuery({ limit: '2', cursor: '4' }),
        )
      ).nextCursor,
    ).toBeNull();
  });

  // Found by a probe: family-root records were dropped after the page was cut, so `limit=1` gave an
  // empty first page with a next cursor, and every page that held one came up short.
  it('fills the page past family-root records, and the cursor resumes after what it read', async () => {
    const records = [
      root('devroot'),
      rec('bjbvcjzqbdsj'),
      root('other'),
      rec('lhsrldbjsnlh'),
      rec('chbvcnurbkuw'),
    ];
    const { list } = listingOf(records);
    const first = await listAgentsPage(list, parseAgentsQuery({ limit: '1' }));
    expect(first.agents.map((a) => a.tokenId)).toEqual(['bjbvcjzqbdsj']);
    expect(first.nextCursor).toBe('3'); // the next agent's offset: the root at 2 is read past
    const second = await listAgentsPage(list, parseAgentsQuery({ limit: '2', cursor: first.nextCursor! }));
    expect(second.agents.map((a) => a.tokenId)).toEqual(['lhsrldbjsnlh', 'chbvcnurbkuw']);
    expect(second.nextCursor).toBeNull();
    // Only non-agents after the last agent: no next page.
    const tail = await listAgentsPage(
      listingOf([rec('bjbvcjzqbdsj'), root('x'), root('y')]).list,
      parseAgentsQuery({ limit: '1' }),
    );
    expect(tail).toMatchObject({ agents: [{ tokenId: 'bjbvcjzqbdsj' }], nextCursor: null });
    expect(agentListItem(rec('bjbvcjzqbdsj')).creature).toBeNull();
  });

  it('pages every agent exactly once, in chain order, whatever the limit and the non-agents between', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.boolean(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 7 }),
        async (kinds, limit) => {
          const records = kinds.map((agent, i) =>
            agent
              ? rec(
                  String.fromCharCode(97 + (i % 26)).repeat(11) +
                    String.fromCharCode(97 + Math.floor(i / 26)),
                )
              : root(`r${i}`),
          );
          const { list } = listingOf(records);
          const seen: string[] = [];
          let cursor: string | null = '';
          for (let pages = 0; cursor !== null; pages++) {
            expect(pages).toBeLessThanOrEqual(records.length + 1);
            const page = await listAgentsPage(list, parseAgentsQuery({ limit, cursor }));
            // A page is full unless it is the last one.
            if (page.nextCursor !== null) expect(page.agents).toHaveLength(limit);
            seen.push(...page.agents.map((a) => a.tokenId));
            cursor = page.nextCursor;
          }
          expect(seen).toEqual(records.filter((r) => isTokenId(r.tokenId)).map((r) => r.tokenId));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('reads past at most AGENTS_PAGE_MAX_SKIPPED + 1 non-agents for one page, then answers a short page that resumes', async () => {
    // Found by a review: the bound was checked per read, so a page of 100 could read ~200 non-agents.
    const records = [
      ...Array.from({ length: 100 }, (_, i) => root(`a${i}`)),
      rec('bjbvcjzqbdsj'),
      ...Array.from({ length: 300 }, (_, i) => root(`b${i}`)),
      rec('lhsrldbjsnlh'),
    ];
    const { list } = listingOf(records);
    const page = await listAgentsPage(list, parseAgentsQuery({ limit: '100' }));
    expect(page.agents.map((a) => a.tokenId)).toEqual(['bjbvcjzqbdsj']);
    expect(Number(page.nextCursor)).toBe(AGENTS_PAGE_MAX_SKIPPED + 2); // after the agent and 101 non-agents
    const rest = await listAgentsPage(list, parseAgentsQuery({ limit: '100', cursor: page.nextCursor! }));
    expect(rest.agents).toEqual([]);
    expect(Number(rest.nextCursor)).toBeGreaterThan(Number(page.nextCursor));
  });

  // Found by a probe: a node answering one record per read, each at its 5 s bound, held one request for
  // 99 s (22 reads in a row; about 8 minutes with limit=100).
  it('makes at most AGENTS_PAGE_MAX_READS chain reads for one page, then answers a short page that resumes', async () => {
    const records = Array.from({ length: 12 }, (_, i) => rec('bjbvcjzqbds' + String.fromCharCode(97 + i)));
    const reads: PageRequest[] = [];
    const oneAtATime = async (request: PageRequest) => {
      reads.push(request);
      return records.slice(request.fromIndex, request.fromIndex + 1);
    };
    const first = await listAgentsPage(oneAtATime, parseAgentsQuery({ limit: '10' }));
    expect(reads).toHaveLength(AGENTS_PAGE_MAX_READS);
    expect(first.agents.map((a) => a.tokenId)).toEqual(
      records.slice(0, AGENTS_PAGE_MAX_READS).map((r) => r.tokenId),
    );
    expect(first.nextCursor).toBe(String(AGENTS_PAGE_MAX_READS));
    const seen = [...first.agents];
    for (let cursor: string | null = first.nextCursor; cursor !== null;) {
      const page = await listAgentsPage(oneAtATime, parseAgentsQuery({ limit: '10', cursor }));
      seen.push(...page.agents);
      cursor = page.nextCursor;
    }
    expect(seen.map((a) => a.tokenId)).toEqual(records.map((r) => r.tokenId));
  });

  // Found by a review: with reads of limit + 1 records each, five reads covered 10 records for limit=1,
  // and ten family roots ahead of an agent gave an empty page with a next cursor.
  it('reads past many non-agents within the read cap: a page is full unless it is the last', async () => {
    const records = [
      ...Array.from({ length: 150 }, (_, i) => root(`r${i}`)),
      rec('bjbvcjzqbdsj'),
      rec('lhsrldbjsnlh'),
    ];
    const { list, reads } = listingOf(records.slice(0, 11).concat(records.slice(150)));
    const page = await listAgentsPage(list, parseAgentsQuery({ limit: '1' }));
    expect(page.agents.map((a) => a.tokenId)).toEqual(['bjbvcjzqbdsj']);
    expect(reads.length).toBeLessThanOrEqual(AGENTS_PAGE_MAX_READS);
    // 101 non-agents ahead of the agent: the skip bound, not the read cap, ends the page.
    const crowded = await listAgentsPage(listingOf(records).list, parseAgentsQuery({ limit: '1' }));
    expect(crowded.agents).toEqual([]);
    expect(Number(crowded.nextCursor)).toBe(AGENTS_PAGE_MAX_SKIPPED + 1);
  });

  // Found by a probe: a node repeating one token filled a page with five copies of it.
  it('never lists one token twice on a page, when the chain repeats itself', async () => {
    const twice = rec('bjbvcjzqbdsj');
    const { list } = listingOf([twice, twice, rec('lhsrldbjsnlh'), twice, twice, rec('chbvcnurbkuw')]);
    const page = await listAgentsPage(list, parseAgentsQuery({ limit: '5' }));
    expect(page.agents.map((a) => a.tokenId)).toEqual(['bjbvcjzqbdsj', 'lhsrldbjsnlh', 'chbvcnurbkuw']);
    expect(page.nextCursor).toBeNull();
  });

  // Found by a review: NEAR readers cap a read at 100, and a short read was taken for the end.
  it('asks for at most AGENTS_CHAIN_READ_MAX records, and only an empty read ends the listing', async () => {
    const records = Array.from({ length: 150 }, (_, i) =>
      rec(String.fromCharCode(97 + (i % 26)).repeat(10) + String.fromCharCode(97 + Math.floor(i / 26)) + 'a'),
    );
    const reads: PageRequest[] = [];
    // A reader that answers at most 30 records, whatever it is asked.
    const list = async (request: PageRequest) => {
      reads.push(request);
      return records.slice(request.fromIndex, request.fromIndex + Math.min(30, request.limit));
    };
    const first = await listAgentsPage(list, parseAgentsQuery({ limit: '100' }));
    expect(first.agents).toHaveLength(100);
    expect(first.nextCursor).toBe('100');
    expect(Math.max(...reads.map((r) => r.limit))).toBeLessThanOrEqual(AGENTS_CHAIN_READ_MAX);
    const second = await listAgentsPage(list, parseAgentsQuery({ limit: '100', cursor: '100' }));
    expect(second.agents).toHaveLength(50);
    expect(second.nextCursor).toBeNull();
  });
});

describe('agentListItem reuse', () => {
  it('one record gives one item (its DN parsed once); another DN or token id in the same metadata object is read again', () => {
    const metadata: Record<string, string> = { userselected_dn: 'Creature=owl' };
    const first = agentListItem(rec('bjbvcjzqbdsj', metadata));
    expect(agentListItem(rec('bjbvcjzqbdsj', metadata))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.face)).toBe(true);
    expect(Object.values(first.face!.categories).every((value) => Object.isFrozen(value))).toBe(true);
    // A reader that changed the record in place: the item follows the DN it holds now.
    metadata.userselected_dn = 'Creature=cat';
    expect(agentListItem(rec('bjbvcjzqbdsj', metadata)).creature).toBe('cat');
    // The same metadata object under another token id (a reader sharing it) is not the same agent.
    expect(agentListItem(rec('cbbvcjzqbdsj', metadata)).tokenId).toBe('cbbvcjzqbdsj');
    // Equal metadata in another object gives an equal item.
    expect(agentListItem(rec('bjbvcjzqbdsj', { userselected_dn: 'Creature=owl' }))).toEqual(first);
  });
});
