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

  it('ignores a New-Token that is not a JWT', async () => {
    const { fetchImpl } = server(['garbage', 'a.b.c']);
    const call = createRenewingFetch({ token: t1, fetch: fetchImpl });
    await call('http://api.test/x');
    await call('http://api.test/x');
    expect(call.token()).toBe(t1);
  });
});
