import { encodeBase64Url } from '../codecs/base64url.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { createRenewingFetch } from './renewing-fetch.js';

/** An unsigned JWT-shaped token (the wrapper only reads exp and session_status; the server verifies). */
const token = (claims: Record<string, unknown>) =>
  `${encodeBase64Url(utf8('{"alg":"EdDSA"}'))}.${encodeBase64Url(utf8(JSON.stringify(claims)))}.sig`;

/** A server stand-in: records the bearer each request sent, answers with the queued New-Token (if any). */
function server(offers: (string | null)[]) {
  const sent: string[] = [];
  const fetchImpl = (async (_input: unknown, init?: RequestInit) => {
    sent.push(new Headers(init?.headers).get('authorization') ?? '');
    const offer = offers.shift() ?? null;
    return new Response('{}', { headers: offer ? { 'New-Token': offer } : {} });
  }) as typeof fetch;
  return { sent, fetchImpl };
}

describe('createRenewingFetch', () => {
  const t1 = token({ exp: 100, session_status: 'new' });
  const t2 = token({ exp: 200, session_status: 'renewed_light_verification' });
  const stale = token({ exp: 150, session_status: 'renewed_light_verification' });
  const closed = token({ exp: 260, session_status: 'closed' });

  it('sends the bearer, swaps in a later-expiring New-Token, ignores an older one arriving late', async () => {
    const { sent, fetchImpl } = server([null, t2, stale, null]);
    const saved: string[] = [];
    const call = createRenewingFetch({ token: t1, fetch: fetchImpl, onNewToken: (t) => void saved.push(t) });
    for (let i = 0; i < 4; i++) await call('http://api.test/x', { headers: { accept: 'application/json' } });
    expect(sent).toEqual([`Bearer ${t1}`, `Bearer ${t1}`, `Bearer ${t2}`, `Bearer ${t2}`]);
    expect(saved).toEqual([t2]);
    expect(call.token()).toBe(t2);
  });

  it('a termination token is reported, never used', async () => {
    const { fetchImpl } = server([closed]);
    let ended = 0;
    const call = createRenewingFetch({ token: t1, fetch: fetchImpl, onSessionClosed: () => ended++ });
    await call('http://api.test/api/logout', { method: 'POST' });
    expect(ended).toBe(1);
    expect(call.token()).toBe(t1);
  });

  // Found by a probe: the bearer went to every URL the wrapper fetched (a peer's avatar or webhook URL,
  // http://169.254.169.254/).
  it('sends the token only to the first request’s origin, or to the origins given', async () => {
    const { sent, fetchImpl } = server([null, t2, null, null]);
    const call = createRenewingFetch({ token: t1, fetch: fetchImpl });
    await call('https://api.test/api/me/identity');
    await call('https://evil.example.net/avatar.png'); // offers t2: not taken from another origin
    await call('http://169.254.169.254/latest/meta-data/', { headers: { 'x-keep': '1' } });
    await call(new URL('https://api.test/api/holanonce16ts'));
    expect(sent).toEqual([`Bearer ${t1}`, '', '', `Bearer ${t1}`]);
    expect(call.token()).toBe(t1);

    const given = server([]);
    const listed = createRenewingFetch({
      token: t1,
      fetch: given.fetchImpl,
      origins: ['https://id.example.com/api', 'http://127.0.0.1:3000'],
    });
    await listed('https://evil.example.net/first');
    await listed('https://id.example.com/api/me/identity');
    await listed('http://127.0.0.1:3000/api/holanonce16ts');
    await listed('http://127.0.0.1:3001/api/holanonce16ts');
    expect(given.sent).toEqual(['', `Bearer ${t1}`, `Bearer ${t1}`, '']);
    expect(() => createRenewingFetch({ token: t1, fetch: given.fetchImpl, origins: ['not a url'] })).toThrow(
      TypeError,
    );
    // Fails on mutant: an opaque origin ("null") was taken for an API to send the token to.
    for (const opaque of ['data:text/plain,api', 'file:///srv/api'])
      expect(() => createRenewingFetch({ token: t1, fetch: given.fetchImpl, origins: [opaque] })).toThrow(
        `origins: ${JSON.stringify(opaque)} is not a URL`,
      );
  });

  // Found by a review and a probe: with "the first request's origin" as the default, an agent whose
  // first call went to a peer sent its token to that peer for good, and a data: URL made it "null".
  it('sends the token to the server the token names, whatever the first request is', async () => {
    const named = token({ exp: 100, iss: 'https://api.test', session_status: 'new' });
    const { sent, fetchImpl } = server([]);
    const call = createRenewingFetch({ token: named, fetch: fetchImpl });
    await call('https://peer.example/avatar.png');
    await call('https://api.test/api/me/identity');
    expect(sent).toEqual(['', `Bearer ${named}`]);

    const federated = token({
      exp: 100,
      iss: 'https://home.test',
      passport_subjectuniqueidentifier_url: 'https://here.test/',
    });
    const viaClaim = server([]);
    const there = createRenewingFetch({ token: federated, fetch: viaClaim.fetchImpl });
    await there('https://home.test/x');
    await there('https://here.test/x');
    expect(viaClaim.sent).toEqual(['', `Bearer ${federated}`]);

    // An empty federated claim (a local token of an issuer that writes "" rather than null) is no server.
    const emptyClaim = token({ exp: 100, iss: 'https://api.test', passport_subjectuniqueidentifier_url: '' });
    const local = server([]);
    const fromIss = createRenewingFetch({ token: emptyClaim, fetch: local.fetchImpl });
    await fromIss('https://evil.example/first');
    await fromIss('https://api.test/x');
    expect(local.sent).toEqual(['', `Bearer ${emptyClaim}`]);

    const unnamed = server([]);
    const opaque = createRenewingFetch({ token: t1, fetch: unnamed.fetchImpl });
    await opaque('data:text/plain,hello');
    await opaque('https://api.test/x'); // the first request with an origin decides
    await opaque('file:///etc/passwd');
    expect(unnamed.sent).toEqual(['', `Bearer ${t1}`, '']);
  });

  // Found by a probe: behind a proxy's path prefix (iss https://host/passport) the token also went to
  // every other application on the host (https://host/other-app/collect).
  it('sends the token only under the path of the server the token names', async () => {
    for (const iss of ['https://host.test/passport', 'https://host.test/passport/']) {
      const prefixed = token({ exp: 100, iss, session_status: 'new' });
      const { sent, fetchImpl } = server([]);
      const call = createRenewingFetch({ token: prefixed, fetch: fetchImpl });
      await call('https://host.test/passport/api/me/identity');
      await call('https://host.test/passport');
      await call('https://host.test/other-app/collect');
      await call('https://host.test/passportx/y');
      await call('https://host.test/passport/../other-app/collect');
      await call('https://host.test/');
      await call(new URL('https://host.test/passport/mcp'));
      expect(sent).toEqual([
        `Bearer ${prefixed}`,
        `Bearer ${prefixed}`,
        '',
        '',
        '',
        '',
        `Bearer ${prefixed}`,
      ]);
    }
  });

  it('ignores a New-Token that is not a JWT', async () => {
    const { fetchImpl } = server(['garbage', 'a.b.c']);
    const call = createRenewingFetch({ token: t1, fetch: fetchImpl });
    await call('http://api.test/x');
    await call('http://api.test/x');
    expect(call.token()).toBe(t1);
  });

  // Found by a probe: any New-Token was taken, and saved by the CLI.
  describe('takes only a renewal of its own session, from the origin it asked', () => {
    const session = {
      session_id: 'sess_bjbvcjzqbdsj_01',
      iss: 'https://api.test',
      aud: 'srv.near',
      sub: 'sp;sub=bjbvcjzqbdsj',
    };
    const mine = token({ ...session, exp: 100, session_status: 'new' });
    const renewal = token({ ...session, exp: 200, session_status: 'renewed_light_verification' });
    const answering = (offer: string, init: { status?: number; url?: string } = {}) =>
      (async () => {
        const response = new Response('{}', { status: init.status ?? 200, headers: { 'New-Token': offer } });
        if (init.url) Object.defineProperty(response, 'url', { value: init.url });
        return response;
      }) as typeof fetch;

    it.each([
      ['another session', token({ ...session, session_id: 'sess_other_02', exp: 300 })],
      ['another issuer', token({ ...session, iss: 'https://evil.test', exp: 300 })],
      ['another audience', token({ ...session, aud: 'evil.near', exp: 300 })],
      [
        'a payload without a signature segment',
        token({ ...session, exp: 300 })
          .split('.')
          .slice(0, 2)
          .join('.'),
      ],
      // Fails on mutant: a token of another subject (the same session id, issuer and audience) was taken.
      ['another subject', token({ ...session, sub: 'sp;sub=evilevilevil', exp: 300 })],
      [
        'an exp that is no whole number',
        `${token({ ...session }).split('.')[0]}.${encodeBase64Url(utf8(`{"session_id":"sess_bjbvcjzqbdsj_01","iss":"https://api.test","aud":"srv.near","sub":"sp;sub=bjbvcjzqbdsj","exp":1e400}`))}.sig`,
      ],
    ])('ignores %s', async (_label, offer) => {
      const saved: string[] = [];
      const call = createRenewingFetch({
        token: mine,
        fetch: answering(offer),
        onNewToken: (t) => void saved.push(t),
      });
      await call('https://api.test/api/holanonce16ts');
      expect([call.token(), saved]).toEqual([mine, []]);
    });

    // Found by a review: the server renews before the handler runs, so a refusal can carry a genuine
    // renewal; and a browser's relative URL has no origin of its own.
    it('takes a renewal on an error answer and for a relative URL, but not one offered by a cross-origin redirect target', async () => {
      const failed = createRenewingFetch({ token: mine, fetch: answering(renewal, { status: 403 }) });
      await failed('https://api.test/x');
      expect(failed.token()).toBe(renewal);
      // A browser page: a relative URL is resolved against its location.
      Object.defineProperty(globalThis, 'location', {
        value: { href: 'https://api.test/app/' },
        configurable: true,
      });
      try {
        const relative = createRenewingFetch({
          token: mine,
          fetch: answering(renewal, { url: 'https://api.test/api/x' }),
        });
        await relative('/api/x');
        expect(relative.token()).toBe(renewal);
      } finally {
        delete (globalThis as { location?: unknown }).location;
      }
      const redirected = createRenewingFetch({
        token: mine,
        fetch: answering(renewal, { url: 'https://evil.test/landing' }),
      });
      await redirected('https://api.test/x');
      expect(redirected.token()).toBe(mine);
      const sameOrigin = createRenewingFetch({
        token: mine,
        fetch: answering(renewal, { url: 'https://api.test/y' }),
      });
      await sameOrigin('https://api.test/x');
      expect(sameOrigin.token()).toBe(renewal);
    });

    it('writes the tokens it takes in the order it took them, a slow write notwithstanding', async () => {
      const later = token({ ...session, exp: 300, session_status: 'renewed_light_verification' });
      const offers = [renewal, later];
      const fetchImpl = (async () =>
        new Response('{}', { headers: { 'New-Token': offers.shift()! } })) as typeof fetch;
      const written: string[] = [];
      const call = createRenewingFetch({
        token: mine,
        fetch: fetchImpl,
        onNewToken: async (t) => {
          // The first write is the slower one.
          await new Promise((resolve) => setTimeout(resolve, t === renewal ? 30 : 1));
          written.push(t);
        },
      });
      await Promise.all([call('https://api.test/a'), call('https://api.test/b')]);
      expect(written).toEqual([renewal, later]);
      expect(call.token()).toBe(later);
    });
  });

  // Found by a probe: outside a browser a relative URL's origin is unknown, and a redirect target's token
  // with exp 2^53-1 was taken; a renewal arriving after the logout's termination token was taken too.
  describe('the edges a probe found', () => {
    const session = {
      session_id: 'sess_x_01',
      iss: 'https://api.test',
      aud: 'srv',
      sub: 'sp;sub=x',
      session_exp: 5200,
    };
    const mine = token({ ...session, exp: 100 });
    const respond = (offer: string, url?: string) => {
      const response = new Response('{}', { headers: { 'New-Token': offer } });
      if (url) Object.defineProperty(response, 'url', { value: url });
      return response;
    };

    it.each([undefined, {}, { token: undefined }, { token: 42 }])(
      'options without a string token (%p, from JavaScript) → a TypeError naming it',
      (options) => {
        expect(() => createRenewingFetch(options as never)).toThrow(/createRenewingFetch\(\{ token \}\)/);
      },
    );

    it('refuses an answer from a known origin when the one asked cannot be told', async () => {
      const call = createRenewingFetch({
        token: mine,
        fetch: (async () =>
          respond(token({ ...session, exp: 200 }), 'https://evil.test/api/me')) as typeof fetch,
      });
      await call('/api/me');
      expect(call.token()).toBe(mine);
    });

    // Fails on mutants: a New-Token on an opaque answer (a non-standard fetch that exposes its headers:
    // the server that sent it cannot be told), or on a network error's status 0, was taken.
    it.each([
      ['an opaque answer', 'opaque'],
      ['a network error (status 0)', 'error'],
    ] as const)('refuses a New-Token on %s', async (_label, type) => {
      const renewal = token({ ...session, exp: 200 });
      const answer = type === 'opaque' ? new Response('{}') : Response.error();
      Object.defineProperty(answer, 'type', { value: type });
      Object.defineProperty(answer, 'headers', { value: new Headers({ 'New-Token': renewal }) });
      const saved: string[] = [];
      const call = createRenewingFetch({
        token: mine,
        fetch: (async () => answer) as typeof fetch,
        onNewToken: (t) => void saved.push(t),
      });
      await call('https://api.test/x');
      expect([call.token(), saved]).toEqual([mine, []]);
    });

    it('refuses an exp past the session end', async () => {
      const call = createRenewingFetch({
        token: mine,
        fetch: (async () => respond(token({ ...session, exp: Number.MAX_SAFE_INTEGER }))) as typeof fetch,
      });
      await call('https://api.test/x');
      expect(call.token()).toBe(mine);
    });

    it('takes nothing after the session ended', async () => {
      const offers = [
        token({ ...session, exp: 300, session_status: 'closed' }),
        token({ ...session, exp: 200 }),
      ];
      const saved: string[] = [];
      let ended = 0;
      const call = createRenewingFetch({
        token: mine,
        fetch: (async () => respond(offers.shift()!)) as typeof fetch,
        onNewToken: (t) => void saved.push(t),
        onSessionClosed: () => ended++,
      });
      await call('https://api.test/api/logout');
      await call('https://api.test/x');
      expect([ended, saved, call.token()]).toEqual([1, [], mine]);
    });
  });
});
