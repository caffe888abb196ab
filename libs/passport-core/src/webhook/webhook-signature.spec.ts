import { sha256 } from '@noble/hashes/sha2.js';
import vectorFile from '../../test-vectors/webhook.json' with { type: 'json' };
import { FixedClock } from '../memory/fixed.clock.js';
import { MemoryReplayStore } from '../memory/memory-replay.store.js';
import { decodeBase64Url } from '../codecs/base64url.codec.js';
import { decodeHex, encodeHex } from '../codecs/hex.codec.js';
import { utf8 } from '../codecs/utf8.codec.js';
import { createNobleSigner } from '../crypto/noble.signer.js';
import { createNobleVerifier } from '../crypto/noble.verifier.js';
import { PassportError } from '../errors/passport.error.js';
import { type SignatureVerifier } from '../ports/signature-verifier.port.js';
import {
  signWebhook,
  verifyWebhookRequest,
  WEBHOOK_MAX_PAST_MS,
  webhookDigest,
  type VerifyWebhookParams,
} from './webhook-signature.js';

const serverKey = decodeHex(vectorFile.serverPublicKeyHex)!;
const TOKEN = vectorFile.serverTokenId;

async function reason(params: VerifyWebhookParams): Promise<string> {
  try {
    await verifyWebhookRequest(params);
  } catch (error) {
    expect(error).toBeInstanceOf(PassportError);
    expect(error).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID' });
    return String((error as PassportError).details?.reason);
  }
  return 'accepted';
}

describe('verifyWebhookRequest (test-vectors/webhook.json)', () => {
  it.each(vectorFile.cases.map((c) => [c.name, c]))('%s', async (_name, c) => {
    const params = {
      headers: c.headers,
      body: c.body,
      clock: new FixedClock(c.nowMs),
      expectedServerPublicKey: serverKey,
    };
    if (c.expected.valid) {
      const verified = await verifyWebhookRequest(params);
      expect(verified.serverTokenId).toBe(TOKEN);
      expect(verified.payload.event).toBe('testhola_validation_success');
    } else {
      expect(await reason(params)).toBe(c.expected.reason);
    }
  });

  it.each<[string, unknown]>([
    ['a string', 'yes'],
    ['a number', 1],
  ])('a verifier port answering %s is no valid signature (only true is)', async (_what, answer) => {
    const c = vectorFile.cases[0];
    expect(c.expected.valid).toBe(true);
    const broken = { verify: () => answer } as unknown as SignatureVerifier;
    const params = {
      headers: c.headers,
      body: c.body,
      clock: new FixedClock(c.nowMs),
      expectedServerPublicKey: serverKey,
      verifier: broken,
    };
    expect(await reason(params)).toBe('signature_invalid');
  });

  it('accepts the body as received bytes too', async () => {
    const c = vectorFile.cases[0];
    await expect(
      verifyWebhookRequest({
        headers: c.headers,
        body: utf8(c.body),
        clock: new FixedClock(c.nowMs),
        expectedServerPublicKey: serverKey,
      }),
    ).resolves.toMatchObject({ timestampMs: 1_767_225_600_000 });
  });
});

describe('signWebhook', () => {
  it('reproduces the vector request exactly from the same seed', () => {
    const signer = createNobleSigner(sha256(utf8(vectorFile.seeds.server)));
    const c = vectorFile.cases[0];
    const signed = signWebhook({
      payload: JSON.parse(c.body),
      signer,
      serverTokenId: TOKEN,
      timestampMs: 1_767_225_600_000,
    });
    expect(signed.body).toBe(c.body);
    const lower = Object.fromEntries(Object.entries(signed.headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(lower).toEqual(c.headers);
  });

  it('serialises only {event, data, isError, requestId}, in that order', () => {
    const signer = createNobleSigner(new Uint8Array(32).fill(4));
    const payload = { requestId: 'r', isError: true, data: { a: 1 }, event: 'e', extra: 'dropped' };
    const signed = signWebhook({ payload, signer, serverTokenId: TOKEN, timestampMs: 5 });
    expect(signed.body).toBe('{"event":"e","data":{"a":1},"isError":true,"requestId":"r"}');
    expect(signed.headers['X-Signature']).toMatch(/^[0-9a-f]{128}$/);
    expect(signed.headers['X-Passport-Public-Key']).toBe(
      signed.headers['X-Passport-Public-Key'].replace(/[=+/]/g, ''),
    );
    expect(decodeBase64Url(signed.headers['X-Passport-Public-Key'])).toEqual(signer.publicKey);
    expect(signed.headers['X-Passport-Implicit-Account']).toBe(encodeHex(signer.publicKey));
    const verifier = createNobleVerifier();
    expect(
      verifier.verify(
        decodeHex(signed.headers['X-Signature'])!,
        sha256(utf8(`${signed.body}5`)),
        signer.publicKey,
      ),
    ).toBe(true);
    expect(webhookDigest(signed.body, '5')).toEqual(sha256(utf8(`${signed.body}5`)));
  });
});

describe('the caller session in a webhook', () => {
  const signer = createNobleSigner(new Uint8Array(32).fill(6));
  const now = 1_800_000_000_000;
  const signed = (sessionId?: string) =>
    signWebhook({
      payload: {
        event: 'e',
        data: null,
        isError: false,
        requestId: 'r',
        ...(sessionId === undefined ? {} : { session_id: sessionId }),
      },
      signer,
      serverTokenId: TOKEN,
      timestampMs: now,
    });
  const verify = (s: ReturnType<typeof signed>, headers: Record<string, string> = s.headers) =>
    verifyWebhookRequest({
      headers,
      body: s.body,
      clock: new FixedClock(now),
      expectedServerPublicKey: signer.publicKey,
    });

  it('is signed into the body as session_id, repeated in X-Passport-Session-Id, and exposed verified', async () => {
    const s = signed('01JSESSION');
    expect(s.body).toBe(
      '{"event":"e","data":null,"isError":false,"requestId":"r","session_id":"01JSESSION"}',
    );
    expect(s.headers['X-Passport-Session-Id']).toBe('01JSESSION');
    const verified = await verify(s);
    expect(verified.sessionId).toBe('01JSESSION');
    expect(verified.payload.session_id).toBe('01JSESSION');
  });
  it('is null, with no header, for a webhook no session caused', async () => {
    const s = signed();
    expect(s.headers['X-Passport-Session-Id']).toBeUndefined();
    expect((await verify(s)).sessionId).toBeNull();
  });
  it('a header that disagrees with the signed body is refused (only the body is signed)', async () => {
    const s = signed('01JSESSION');
    const params = (headers: Record<string, string>) => ({
      headers,
      body: s.body,
      clock: new FixedClock(now),
      expectedServerPublicKey: signer.publicKey,
    });
    expect(await reason(params({ ...s.headers, 'X-Passport-Session-Id': '01JOTHER' }))).toBe(
      'session_id_mismatch',
    );
    const none = signed();
    expect(
      await reason({
        ...params({ ...none.headers, 'x-passport-session-id': '01JSESSION' }),
        body: none.body,
      }),
    ).toBe('session_id_mismatch');
  });
});

describe('verifyWebhookRequest: every rejection', () => {
  const signer = createNobleSigner(new Uint8Array(32).fill(5));
  const now = 1_800_000_000_000;
  const fresh = () =>
    signWebhook({
      payload: { event: 'e', data: null, isError: false, requestId: 'r1' },
      signer,
      serverTokenId: TOKEN,
      timestampMs: now,
    });
  const base = (over: Partial<{ headers: Record<string, string>; body: string }> = {}) => {
    const s = fresh();
    return {
      headers: over.headers ?? { ...s.headers },
      body: over.body ?? s.body,
      clock: new FixedClock(now),
      expectedServerPublicKey: signer.publicKey,
    };
  };
  const withHeader = (name: string, value: string | undefined) => {
    const s = fresh();
    const headers: Record<string, string> = { ...s.headers };
    if (value === undefined) delete headers[name];
    else headers[name] = value;
    return base({ headers });
  };

  it.each([
    'X-Timestamp',
    'X-Signature',
    'X-Passport-Public-Key',
    'X-Passport-Implicit-Account',
    'X-Passport-Token-Id',
  ])('missing %s → missing_header', async (name) => {
    expect(await reason(withHeader(name, undefined))).toBe('missing_header');
  });

  it('reads headers in any case and takes the first of repeated values', async () => {
    const s = fresh();
    const headers: Record<string, string | string[]> = Object.fromEntries(
      Object.entries(s.headers).map(([k, v]) => [k.toUpperCase(), v]),
    );
    headers['X-SIGNATURE'] = [s.headers['X-Signature'], 'junk'];
    await expect(verifyWebhookRequest({ ...base(), headers })).resolves.toMatchObject({
      serverTokenId: TOKEN,
    });
  });

  it.each([
    ['a 31-byte key', 'X-Passport-Public-Key', 'AAAA', 'public_key_invalid'],
    ['a padded key', 'X-Passport-Public-Key', 'x=', 'public_key_invalid'],
    ['another implicit account', 'X-Passport-Implicit-Account', '00'.repeat(32), 'implicit_account_mismatch'],
    ['a short signature', 'X-Signature', 'ab', 'signature_malformed'],
    ['a non-hex signature', 'X-Signature', 'zz'.repeat(64), 'signature_malformed'],
    ['a negative timestamp', 'X-Timestamp', '-5', 'timestamp_invalid'],
  ])('%s → %s', async (_label, header, value, expected) => {
    expect(await reason(withHeader(header, value))).toBe(expected);
  });

  // A mutation probe: 17 digits (\d{1,17}) and a case-sensitive implicit account both passed.
  it('an X-Timestamp of 17 digits is timestamp_invalid, even one whose value lies in the window', async () => {
    const s = fresh();
    const timestamp = `0000${now}`;
    expect(timestamp).toHaveLength(17);
    const signature = encodeHex(signer.sign(webhookDigest(s.body, timestamp)));
    const headers = { ...s.headers, 'X-Timestamp': timestamp, 'X-Signature': signature };
    expect(await reason(base({ headers }))).toBe('timestamp_invalid');
  });

  it('X-Passport-Implicit-Account is hex in any letter case', async () => {
    const s = fresh();
    const headers = {
      ...s.headers,
      'X-Passport-Implicit-Account': s.headers['X-Passport-Implicit-Account'].toUpperCase(),
    };
    await expect(verifyWebhookRequest(base({ headers }))).resolves.toMatchObject({ serverTokenId: TOKEN });
  });

  it('refuses a token id other than the expected one', async () => {
    expect(await reason({ ...base(), expectedServerTokenId: 'bjbvcjzqbdsj' })).toBe('token_id_mismatch');
  });

  it('refuses a signed body that is not a webhook payload', async () => {
    const s = signWebhook({
      payload: { event: 'e', data: 1, isError: false, requestId: 'r' },
      signer,
      serverTokenId: TOKEN,
      timestampMs: now,
    });
    const body = '[1,2]';
    const headers = { ...s.headers, 'X-Signature': encodeHex(signer.sign(webhookDigest(body, String(now)))) };
    expect(await reason({ ...base(), headers, body })).toBe('body_invalid');
  });

  it('resolves the keys of the expected server passport, not of the token id the request names', async () => {
    const asked: string[] = [];
    const resolveServerKeys = async (tokenId: string) => (
      asked.push(tokenId),
      tokenId === TOKEN ? [signer.publicKey] : []
    );
    const { expectedServerPublicKey: _pinned, ...rest } = base();
    await expect(
      verifyWebhookRequest({ ...rest, expectedServerTokenId: TOKEN, resolveServerKeys }),
    ).resolves.toMatchObject({ serverTokenId: TOKEN, serverPublicKey: signer.publicKey });
    expect(asked).toEqual([TOKEN]);
    const rotated = async () => [createNobleSigner(new Uint8Array(32).fill(6)).publicKey];
    expect(await reason({ ...rest, expectedServerTokenId: TOKEN, resolveServerKeys: rotated })).toBe(
      'key_not_expected',
    );
  });

  // Found by a probe: a resolver answering null, or a pinned key passed as undefined beside a resolver,
  // threw a raw TypeError out of the helper instead of its own refusal.
  it('a resolver answering nothing usable, or an undefined pinned key, is key_not_expected, never a TypeError', async () => {
    const { expectedServerPublicKey: _pinned, ...rest } = base();
    for (const answer of [null, undefined, 'key', [null], [signer.publicKey.join(',')]]) {
      const resolveServerKeys = async () => answer as never;
      expect(await reason({ ...rest, expectedServerTokenId: TOKEN, resolveServerKeys })).toBe(
        'key_not_expected',
      );
    }
    const resolveServerKeys = async () => [signer.publicKey];
    await expect(
      verifyWebhookRequest({
        ...rest,
        expectedServerPublicKey: undefined,
        expectedServerTokenId: TOKEN,
        resolveServerKeys,
      } as never),
    ).resolves.toMatchObject({ serverTokenId: TOKEN, serverPublicKey: signer.publicKey });
    expect(await reason({ ...rest, expectedServerPublicKey: undefined } as never)).toBe('key_not_expected');
  });

  it('with a replay store accepts a request once', async () => {
    const replay = new MemoryReplayStore();
    const params = { ...base(), replay };
    await expect(verifyWebhookRequest(params)).resolves.toMatchObject({ serverTokenId: TOKEN });
    expect(await reason(params)).toBe('replayed');
  });

  // From a mutation probe: a replay key of the signature as sent passed. The signature is read as hex in
  // either case, so a captured request sent again with its signature in upper case would be a new one.
  it('the same request with its signature in another case is a replay', async () => {
    const replay = new MemoryReplayStore();
    const first = base();
    await expect(verifyWebhookRequest({ ...first, replay })).resolves.toMatchObject({ serverTokenId: TOKEN });
    const signature = first.headers['X-Signature'];
    expect(signature).toMatch(/[a-f]/);
    for (const recased of [signature.toUpperCase(), signature[0].toUpperCase() + signature.slice(1)]) {
      const again = { ...first, headers: { ...first.headers, 'X-Signature': recased }, replay };
      expect(await reason(again)).toBe('replayed');
    }
  });

  // From a mutation probe: a record that expired with the window let the request in again at its last
  // millisecond. The record outlives the window by the future allowance, so no instant is open.
  it('a replayed request is refused up to the last millisecond of the window, and stale after it', async () => {
    const replay = new MemoryReplayStore();
    const first = base();
    await expect(verifyWebhookRequest({ ...first, replay })).resolves.toMatchObject({ serverTokenId: TOKEN });
    const at = (ms: number) => ({ ...first, clock: new FixedClock(ms), replay });
    expect(await reason(at(now + WEBHOOK_MAX_PAST_MS))).toBe('replayed');
    expect(await reason(at(now + WEBHOOK_MAX_PAST_MS + 1))).toBe('timestamp_stale');
  });
});
