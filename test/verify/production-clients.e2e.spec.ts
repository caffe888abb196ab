/**
 * Wire compatibility with the production network's own clients, over real HTTP, with none of the
 * core's builders or checkers on the client side: the bytes are made and checked here the way those
 * clients do it (restated from their published behaviour, not copied):
 *
 * - the openclaw and hermes plugins log in with `accountid` + the challenge's integer `timestamp` +
 *   `base64url_signature` over `accountid + timestamp_iso`;
 * - rodit-auth-be's `login_server` logs in with `passportid`, a timestamp from its own clock and
 *   `passportid_base64url_signature`, then checks the JWT: three canonical base64url segments, a 64-byte
 *   signature by the key of the `passport_id` passport's owner, `passport_idsignature` over
 *   `passport_id + ISO(iat)`, `iss` (port removed) = that passport's `subjectuniqueidentifier_url`,
 *   `aud` = its owner, `nbf` not in the future;
 * - hola-client's `sign.js` uppercases the whole prefix (token id included), always writes the host
 *   marker `API.IDENTYCLAW.COM`, base32 without padding, mod-23 checksum; hermes verifies with
 *   `expectedRecipient: "MUNDO"` and no bearer token;
 * - verify-hola parses a line from the right with the marker fixed to `API.IDENTYCLAW.COM` and recomputes
 *   the checksum: the server's own testhola reply line must pass it, and its signature must be the
 *   server passport owner's.
 *
 * docs/protocol.md §2 (host marker), §3 (login, JWT).
 */
import { createPrivateKey, createPublicKey, sign as edSign, verify as edVerify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { mintPassport, newKey, ledgerFileOf, type TestKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

const signWith = (seed: Uint8Array, message: string): Buffer =>
  edSign(
    null,
    Buffer.from(message, 'utf8'),
    createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' }),
  );
const verifyWith = (publicKey: Buffer, message: string | Buffer, signature: Buffer): boolean =>
  edVerify(
    null,
    typeof message === 'string' ? Buffer.from(message, 'utf8') : message,
    createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' }),
    signature,
  );

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return bits > 0 ? out + B32[(value << (5 - bits)) & 31] : out;
}
function unbase32(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const c of text.replace(/=+$/, '')) {
    value = (value << 5) | B32.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}
const CHECKSUM = 'ABCDEFGHJKMNPQRSTUVWXYZ';
const checksum = (text: string): string => {
  let sum = 0;
  for (let i = 0; i < text.length; i++) sum += text.charCodeAt(i);
  return CHECKSUM[sum % CHECKSUM.length]!;
};

/** hola-client sign.js: the prefix uppercased whole, fixed marker, unpadded base32, checksum. */
function pluginLine(
  seed: Uint8Array,
  tokenId: string,
  timestamp: string,
  nonce: string,
  recipient = 'MUNDO',
): string {
  const prefix =
    `HOLA/${recipient}/${tokenId.toLowerCase()}/${timestamp}/${nonce.toUpperCase()}/API.IDENTYCLAW.COM/`.toUpperCase();
  const signature = base32(signWith(seed, prefix));
  return `${prefix}${signature}/${checksum(`${prefix}${signature}/`)}`;
}

/** verify-hola's parse: from the right, marker fixed, checksum recomputed over the rebuilt prefix. */
function verifyHolaParse(line: string): { signed: string; signature: string; tokenId: string } | string {
  const upper = line.toUpperCase();
  if (!upper.startsWith('HOLA/')) return 'prefix';
  const rest = upper.slice(5);
  const recipient = rest.slice(0, rest.indexOf('/')) || 'MUNDO';
  const fields = rest.slice(rest.indexOf('/') + 1).split('/');
  const check = fields.pop()!;
  const signature = fields.pop()!;
  const marker = fields.pop()!;
  const nonce = fields.pop()!;
  if (marker !== 'API.IDENTYCLAW.COM') return `marker ${marker}`;
  if (!/^[0-9A-F]+$/.test(nonce)) return 'nonce';
  if (fields.length !== 2 || !/^[A-Z]{12}$/.test(fields[0]!) || Number.isNaN(Date.parse(fields[1]!)))
    return 'fields';
  const signed = `HOLA/${recipient}/${fields[0]}/${fields[1]}/${nonce}/API.IDENTYCLAW.COM/`;
  if (checksum(`${signed}${signature}/`) !== check) return 'checksum';
  return { signed, signature, tokenId: fields[0]! };
}

const canonicalB64u = (s: string): boolean =>
  /^[A-Za-z0-9_-]+$/.test(s) && Buffer.from(s, 'base64url').toString('base64url') === s;

async function call(app: TestApp, method: string, path: string, body?: unknown, jwt?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (jwt) headers.authorization = `Bearer ${jwt}`;
  const res = await fetch(app.baseUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

describe('the production clients, byte for byte (SERVICE_HOST=api.identyclaw.com)', () => {
  let app: TestApp;
  let key: TestKey;
  let tokenId: string;
  let server: { token_id: string; owner_id: string; metadata: Record<string, string> };

  beforeAll(async () => {
    app = await startTestApp({ SERVICE_HOST: 'api.identyclaw.com', STORE: 'memory' });
    key = newKey();
    tokenId = (await mintPassport(app, { owner: key })).tokenId;
    const ledger = JSON.parse(await readFile(ledgerFileOf(app), 'utf8')) as { passports: (typeof server)[] };
    server = ledger.passports.find((p) => /^[a-z]{12}$/.test(p.token_id) && p.token_id !== tokenId)!;
  });
  afterAll(() => app.close());

  // One login per process, as the plugins do (a second one in the same challenge second is refused:
  // docs/protocol.md §3, single use).
  let cachedJwt: string | undefined;
  async function pluginLogin(): Promise<string> {
    if (cachedJwt) return cachedJwt;
    const challenge = await call(app, 'GET', '/api/login/timestamp');
    const signature = signWith(key.seed, key.accountId + challenge.body.timestamp_iso).toString('base64url');
    const res = await call(app, 'POST', '/api/login', {
      accountid: key.accountId,
      timestamp: challenge.body.timestamp,
      base64url_signature: signature,
    });
    expect(res.status).toBe(200);
    cachedJwt = res.body.jwt_token as string;
    return cachedJwt;
  }

  it("rodit-auth-be's login_server (passportid, own clock) gets a token its validate_jwt_token_be accepts", async () => {
    const ts = Math.floor(Date.now() / 1000) - 2;
    const res = await call(app, 'POST', '/api/login', {
      passportid: tokenId,
      timestamp: ts,
      passportid_base64url_signature: signWith(
        key.seed,
        tokenId + new Date(ts * 1000).toISOString(),
      ).toString('base64url'),
    });
    expect(res.status).toBe(200);
    const jwt = res.body.jwt_token as string;
    const parts = jwt.split('.');
    expect(parts.every(canonicalB64u)).toBe(true);
    expect(Buffer.from(parts[2]!, 'base64url')).toHaveLength(64);
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString());
    expect(header).toEqual({ alg: 'EdDSA', typ: 'JWT' });
    expect(claims.passport_id).toBe(server.token_id);
    const serverKey = Buffer.from(server.owner_id, 'hex');
    expect(verifyWith(serverKey, `${parts[0]}.${parts[1]}`, Buffer.from(parts[2]!, 'base64url'))).toBe(true);
    expect(
      verifyWith(
        serverKey,
        claims.passport_id + new Date(claims.iat * 1000).toISOString(),
        Buffer.from(claims.passport_idsignature, 'base64url'),
      ),
    ).toBe(true);
    const noPort = (u: string) => Object.assign(new URL(u), { port: '' }).toString();
    expect(noPort(claims.iss)).toBe(noPort(server.metadata.subjectuniqueidentifier_url!));
    expect(claims.aud).toBe(server.owner_id);
    expect(claims.nbf).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it("a hola-client line verifies, with the plugin's bearer and with hermes' MUNDO and no bearer", async () => {
    const jwt = await pluginLogin();
    for (const bearer of [jwt, undefined]) {
      const nonce = await call(app, 'GET', '/api/holanonce16ts', undefined, jwt);
      const line = pluginLine(key.seed, tokenId, nonce.body.timestamp, nonce.body.noncetsHex);
      const res = await call(
        app,
        'POST',
        '/api/identity/verify',
        { hola: line, expectedRecipient: 'MUNDO' },
        bearer,
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ verified: true, peerTokenId: tokenId, failureReasons: [] });
      expect(res.body.warnings).toBeUndefined();
    }
  });

  it("the server's testhola reply line passes verify-hola's parse and is signed by the server passport's owner", async () => {
    const jwt = await pluginLogin();
    const nonce = await call(app, 'GET', '/api/holanonce16ts', undefined, jwt);
    const line = pluginLine(
      key.seed,
      tokenId,
      nonce.body.timestamp,
      nonce.body.noncetsHex,
      server.token_id.toUpperCase(),
    );
    const res = await call(app, 'POST', '/api/testhola', { hola: line }, jwt);
    expect(res.status).toBe(200);
    const parsed = verifyHolaParse(res.body.hola as string);
    expect(typeof parsed).toBe('object');
    const { signed, signature, tokenId: sender } = parsed as Exclude<typeof parsed, string>;
    expect(sender).toBe(server.token_id.toUpperCase());
    expect(verifyWith(Buffer.from(server.owner_id, 'hex'), signed, unbase32(signature))).toBe(true);
  });
});
