/**
 * The app on CHAIN=near, end to end against the fake NEAR JSON-RPC node (the real near-api-js client):
 * login, identity and verify work while the node answers; when it fails (HTTP 500s, then timeouts),
 * every surface answers with its documented code, quickly, and never with the node's own text.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  buildHolaLine,
  formatNearCredentials,
  nearCredentialsFromSeed,
  randomFaceTokenId,
  signFamilyMetadata,
} from '@passport/core';
import { cryptoRandomInt } from '@passport/core/token-id';
import { familyRootTokenId } from '@passport/core/family';
import { implicitAccountId } from '@passport/core/codecs';
import { createNodeSigner } from '@passport/core/node';
import { startFakeNearRpc, type FakeNearRpc } from '../fake-near-rpc/fake-near-rpc.server.js';
import { bearer, fetchChallenge, signLogin, type TestKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const CONTRACT = 'passport.test.near';
const UPSTREAM_SECRET = 'secret-internal-detail';

function key(): TestKey {
  const seed = new Uint8Array(randomBytes(32));
  const signer = createNodeSigner(seed);
  return { seed, signer, accountId: implicitAccountId(signer.publicKey) };
}

interface LogLine {
  readonly code?: string;
  /** A 503's cause in one line; a decided 500's as type, message and stack (causeForLog). */
  readonly cause?: string | { readonly type?: string; readonly message?: string; readonly stack?: string };
}

describe('CHAIN=near through the app, and chain outages', () => {
  const logLines: LogLine[] = [];
  let rpc: FakeNearRpc;
  let app: TestApp;
  let dataDir: string;
  const root = key();
  const serverKey = key();
  const serviceProviderId = familyRootTokenId({ chain: 'near', contract: CONTRACT }, 'root');

  /** Puts a passport on the fake chain, signed into the family. */
  function mint(owner: TestKey, tokenId = randomFaceTokenId(cryptoRandomInt), url?: string): string {
    // Minted the issuer's way: no token_id in the metadata.
    const metadata: Record<string, string> = {
      serviceprovider_id: serviceProviderId,
      subjectuniqueidentifier_url: url ?? app.baseUrl,
      not_before: '',
      not_after: '',
    };
    metadata.serviceprovider_signature = signFamilyMetadata(metadata, tokenId, root.signer);
    rpc.tokens.push({ token_id: tokenId, owner_id: owner.accountId, metadata });
    return tokenId;
  }

  async function login(owner: TestKey, tokenId: string) {
    const challenge = await fetchChallenge(app.baseUrl);
    const res = await fetch(`${app.baseUrl}/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        passportid: tokenId,
        timestamp_iso: challenge.timestamp_iso,
        passportid_base64url_signature: signLogin(owner, tokenId, challenge.timestamp_iso),
      }),
    });
    return { status: res.status, text: await res.text() };
  }

  const hola = (owner: TestKey, tokenId: string) =>
    buildHolaLine({
      senderTokenId: tokenId,
      timestamp: new Date().toISOString(),
      nonceHex: randomBytes(16).toString('hex').toUpperCase(),
      serviceHost: new URL(app.baseUrl).host,
      signer: owner.signer,
    });

  const verify = async (line: string) => {
    const res = await fetch(`${app.baseUrl}/api/identity/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ hola: line }),
    });
    return { status: res.status, text: await res.text() };
  };

  beforeAll(async () => {
    rpc = await startFakeNearRpc(CONTRACT);
    rpc.blockTimeMs = Date.now();
    dataDir = await mkdtemp(path.join(tmpdir(), 'passport-near-'));
    await mkdir(path.join(dataDir, 'keys'), { recursive: true });
    await writeFile(
      path.join(dataDir, 'keys', 'server.json'),
      JSON.stringify(formatNearCredentials(nearCredentialsFromSeed(serverKey.seed))),
      { mode: 0o600 },
    );
    rpc.tokens.push({ token_id: serviceProviderId, owner_id: root.accountId, metadata: {} });
    const serverToken = randomFaceTokenId(cryptoRandomInt);
    const serverMetadata: Record<string, string> = {
      serviceprovider_id: serviceProviderId,
      not_before: '',
      not_after: '',
    };
    serverMetadata.serviceprovider_signature = signFamilyMetadata(serverMetadata, serverToken, root.signer);
    rpc.tokens.push({ token_id: serverToken, owner_id: serverKey.accountId, metadata: serverMetadata });
    app = await startTestApp(
      {
        DATA_DIR: dataDir,
        CHAIN: 'near',
        NEAR_RPC_URL: rpc.url,
        NEAR_CONTRACT_ID: CONTRACT,
        STORE: 'memory',
        LOG_LEVEL: 'warn',
      },
      { logDestination: { write: (line: string) => void logLines.push(JSON.parse(line) as LogLine) } },
    );
  });

  afterAll(async () => {
    await app?.close();
    await rpc?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('logs in, reads identity and verifies a line against NEAR', async () => {
    const owner = key();
    const tokenId = mint(owner);
    const res = await login(owner, tokenId);
    expect(res.status).toBe(200);
    const jwt = JSON.parse(res.text).jwt_token as string;
    const me = await fetch(`${app.baseUrl}/api/me/identity`, { headers: bearer(jwt) });
    expect(((await me.json()) as { tokenId: string }).tokenId).toBe(tokenId);
    expect(JSON.parse((await verify(hola(owner, tokenId))).text)).toMatchObject({
      verified: true,
      peerTokenId: tokenId,
    });
  });

  it('a burst of /health probes reaches the node about once, not once per probe', async () => {
    await new Promise((resolve) => setTimeout(resolve, 1100)); // past any earlier check's reuse window
    const blockReads = () => rpc.count((r) => r.method === 'block');
    const before = blockReads();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => fetch(`${app.baseUrl}/health`).then((r) => r.json())),
    );
    expect(answers.every((a) => (a as { status: string }).status === 'healthy')).toBe(true);
    expect(blockReads() - before).toBeGreaterThanOrEqual(1);
    expect(blockReads() - before).toBeLessThanOrEqual(2);
  });

  it('a failing node: verify reports public_key_error, login 503, identity 500, health degraded; no upstream text', async () => {
    const owner = key();
    const tokenId = mint(owner);
    const other = key();
    const otherToken = mint(other);
    // Every request fails from here on (near-api-js retries 503s, so queue plenty).
    rpc.clearFaults();
    rpc.enqueue(...Array.from({ length: 200 }, () => ({ kind: 'http' as const, status: 503 })));
    logLines.length = 0; // this test's lines only
    const started = Date.now();

    const verified = await verify(hola(owner, tokenId));
    expect(verified.status).toBe(200);
    const body = JSON.parse(verified.text);
    expect(body.verified).toBe(false);
    expect(body.failureReasons).toContain('public_key_error');

    const refused = await login(other, otherToken);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.text).error.code).toBe('SERVICE_UNAVAILABLE');

    const identity = await fetch(`${app.baseUrl}/api/identity/token/${otherToken}/public`);
    expect(identity.status).toBe(500);
    const identityText = await identity.text();
    expect(JSON.parse(identityText).error.code).toBe('IDENTITY_LOOKUP_FAILED');

    await new Promise((resolve) => setTimeout(resolve, 1100)); // past the health check's reuse window
    const health = (await (await fetch(`${app.baseUrl}/health`)).json()) as {
      status: string;
      degraded: boolean;
    };
    expect(health).toMatchObject({ status: 'degraded', degraded: true });

    for (const text of [verified.text, refused.text, identityText])
      expect(text).not.toContain(UPSTREAM_SECRET);
    expect(Date.now() - started).toBeLessThan(15_000);
    // The operator's log says why the chain could not be read; the answers never do.
    const loggedCause = (code: string) =>
      logLines
        .filter((l) => l.code === code)
        .map((l) => (typeof l.cause === 'string' ? l.cause : `${l.cause?.type}: ${l.cause?.message}`));
    // The node answered HTTP 503: the reader's reason is rpc_error, with the status underneath.
    expect(loggedCause('SERVICE_UNAVAILABLE')).toContain(
      'ChainUnavailableError: chain unavailable: rpc_error',
    );
    expect(loggedCause('IDENTITY_LOOKUP_FAILED')).toContain(
      'ChainUnavailableError: chain unavailable: rpc_error',
    );
    // A 500's cause carries its stack, but none of the error's other fields (causeForLog).
    const identityLine = logLines.find((l) => l.code === 'IDENTITY_LOOKUP_FAILED');
    expect(Object.keys(identityLine?.cause as object).sort()).toEqual(['message', 'stack', 'type']);
  });

  it('a failing node: the JWT tier cannot re-check the passport and answers 503 (the token stays good for later)', async () => {
    rpc.clearFaults();
    const owner = key();
    const tokenId = mint(owner);
    const jwt = JSON.parse((await login(owner, tokenId)).text).jwt_token as string;
    rpc.enqueue(...Array.from({ length: 200 }, () => ({ kind: 'http' as const, status: 503 })));
    // Past the chain cache's 5 s, so the passport must be read again.
    await new Promise((resolve) => setTimeout(resolve, 5200));
    const res = await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) });
    const text = await res.text();
    expect(res.status).toBe(503);
    expect(JSON.parse(text).error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      details: { reason: 'chain_unavailable' },
    });
    expect(text).not.toContain(UPSTREAM_SECRET);
    rpc.clearFaults();
    expect((await fetch(`${app.baseUrl}/api/holanonce16ts`, { headers: bearer(jwt) })).status).toBe(200);
  }, 30_000);

  it('a node that stops answering: the request ends with the documented code instead of hanging', async () => {
    rpc.clearFaults();
    const owner = key();
    const tokenId = mint(owner);
    const before = rpc.requests.length;
    rpc.enqueue(...Array.from({ length: 20 }, () => ({ kind: 'slow' as const, delayMs: 20_000 })));
    const started = Date.now();
    const body = JSON.parse((await verify(hola(owner, tokenId))).text);
    expect(body.failureReasons).toContain('public_key_error');
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(4_000); // it did wait for the node: the reader's 5 s timeout ended it
    expect(elapsed).toBeLessThan(15_000);
    expect(rpc.requests.length).toBeGreaterThan(before);
    rpc.clearFaults();
  }, 30_000);
});
