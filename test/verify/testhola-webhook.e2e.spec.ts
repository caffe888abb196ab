/**
 * The `testhola_validation_success` webhook (spec "Events"; docs/protocol.md §10) with a real receiver
 * (node:http on 127.0.0.1). The receiver checks every request with the client library's
 * `verifyWebhookRequest`, resolving the server key through the app's own DID document. Refused
 * targets (loopback without the test setting, private addresses, outside webhook_cidr) receive
 * nothing, and no outcome ever changes the API response.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AddressInfo } from 'node:net';
import {
  decodeBase58,
  MemoryReplayStore,
  systemClock,
  verifyWebhookRequest,
  type PassportError,
} from '@passport/core';
import { FixedClock } from '@passport/core/testing';
import { updateLedgerFile } from '@passport/adapters/ledger';
import {
  MAX_IN_FLIGHT_PER_HOLDER,
  WebhookDispatcher,
} from '../../apps/api/src/webhooks/webhook-dispatcher.js';
import { bearer, ledgerFileOf, mintAndLogin, serverIdentityOf } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from './hola-lines.js';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

async function startReceiver(status = 200): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, server };
}

const closeServer = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Waits (≤ 5 s) until the receiver holds `count` requests; the test's own dispatches stay in flight. */
async function eventuallyReceived(received: readonly Received[], count: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (received.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(received).toHaveLength(count);
}

async function selfTest(app: TestApp, options: Parameters<typeof mintAndLogin>[1] = {}) {
  const caller = await mintAndLogin(app, options);
  const res = await postJson(app)(
    '/api/testhola',
    { hola: holaLine(app, { sender: caller.tokenId, signer: caller.key.signer }) },
    bearer(caller.jwt),
  );
  expect(res.status).toBe(200);
  return { caller, res };
}

/**
 * Moves the caller's `webhook_url` on chain, waits past the chain cache (≤ 5 s), and self-tests with the
 * caller's JWT (issued before the move).
 */
async function testholaAfterMovingWebhook(
  app: TestApp,
  caller: Awaited<ReturnType<typeof mintAndLogin>>,
  webhookUrl: string,
): Promise<void> {
  await updateLedgerFile(ledgerFileOf(app), (doc) => ({
    ...doc,
    passports: doc.passports.map((p) =>
      p.token_id === caller.tokenId ? { ...p, metadata: { ...p.metadata, webhook_url: webhookUrl } } : p,
    ),
  }));
  await new Promise((resolve) => setTimeout(resolve, 5100));
  const res = await postJson(app)(
    '/api/testhola',
    { hola: holaLine(app, { sender: caller.tokenId, signer: caller.key.signer }) },
    bearer(caller.jwt),
  );
  expect(res.status).toBe(200);
}

/** The server passport's keys as its DID document over HTTP states them (a receiver's resolver). */
const keysFromDid = (baseUrl: string) => async (tokenId: string) => {
  const res = await fetch(`${baseUrl}/.well-known/did/resolve?did=did:passport:${tokenId}`);
  const doc = (await res.json()) as { verificationMethod: { publicKeyBase58: string }[] };
  return doc.verificationMethod.map((m) => decodeBase58(m.publicKeyBase58)!);
};

describe('testhola webhook, loopback allowed by the test setting', () => {
  let app: TestApp;
  let dispatcher: WebhookDispatcher;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    app = await startTestApp({
      STORE: 'memory',
      WEBHOOK_TEST_ENABLED: 'true',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    });
    dispatcher = app.app.get(WebhookDispatcher);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await closeServer(receiver.server);
    await app.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });

  it('POSTs the signed event to <webhook_url>/hooks/agent and /hooks/wake; the core verifier accepts both', async () => {
    const { caller, res } = await selfTest(app, { metadata: { webhook_url: `${receiver.url}/gateway/` } });
    await dispatcher.idle();
    expect(receiver.received.map((r) => r.path).sort()).toEqual([
      '/gateway/hooks/agent',
      '/gateway/hooks/wake',
    ]);
    const server = serverIdentityOf(app);
    // The session of the JWT that called /api/testhola, for receivers that require a session.
    const sessionId = (
      JSON.parse(Buffer.from(caller.jwt.split('.')[1], 'base64url').toString('utf8')) as {
        session_id: string;
      }
    ).session_id;
    expect(sessionId).toEqual(expect.any(String));
    for (const request of receiver.received) {
      const verified = await verifyWebhookRequest({
        headers: request.headers,
        body: request.body,
        clock: systemClock,
        expectedServerTokenId: server.tokenId,
        resolveServerKeys: keysFromDid(app.baseUrl),
      });
      expect(verified.payload).toEqual({
        event: 'testhola_validation_success',
        isError: false,
        requestId: res.headers.get('x-request-id'),
        session_id: sessionId,
        data: {
          peerTokenId: caller.tokenId,
          serverTokenId: server.tokenId,
          recipient: 'MUNDO',
          timestamp: res.body.serverTimestamp,
          endpoint: '/api/testhola',
        },
      });
      expect(verified.sessionId).toBe(sessionId);
      expect(request.headers['x-passport-session-id']).toBe(sessionId);
      expect(request.headers['content-type']).toBe('application/json');
    }
    expect(dispatcher.recentOutcomes().slice(-2)).toEqual([
      expect.objectContaining({ outcome: 'delivered', status: 200, address: '127.0.0.1' }),
      expect.objectContaining({ outcome: 'delivered', status: 200, address: '127.0.0.1' }),
    ]);
  });

  // Found by a probe: one passport whose receiver hangs took all 100 delivery slots, and every other
  // holder's webhook was refused.
  it('one holder cannot take every delivery slot: its eleventh concurrent dispatch is refused, others still go out', async () => {
    let release!: () => void;
    const gate = new Promise<null>((resolve) => (release = () => resolve(null)));
    const refusedBefore = dispatcher.figures().refused;
    for (let i = 0; i < MAX_IN_FLIGHT_PER_HOLDER; i++) dispatcher.dispatch(() => gate, 'slowholderx');
    expect(dispatcher.figures().refused).toBe(refusedBefore);
    dispatcher.dispatch(() => gate, 'slowholderx');
    expect(dispatcher.figures().refused).toBe(refusedBefore + 1);
    const { caller } = await selfTest(app, { metadata: { webhook_url: receiver.url } });
    await eventuallyReceived(receiver.received, 2);
    expect(caller.tokenId).not.toBe('slowholderx');
    release();
    await dispatcher.idle();
    // The holder's slots are free again once its dispatches end.
    dispatcher.dispatch(() => Promise.resolve(null), 'slowholderx');
    await dispatcher.idle();
    expect(dispatcher.figures().refused).toBe(refusedBefore + 1);
  });

  it('a tampered body, a stranger key or a stale timestamp is refused by the receiver helper', async () => {
    await selfTest(app, { metadata: { webhook_url: receiver.url } });
    await dispatcher.idle();
    const [request] = receiver.received;
    const server = serverIdentityOf(app);
    const check = (overrides: Partial<Parameters<typeof verifyWebhookRequest>[0]>) =>
      verifyWebhookRequest({
        headers: request.headers,
        body: request.body,
        clock: systemClock,
        expectedServerPublicKey: server.signer.publicKey,
        ...overrides,
      } as Parameters<typeof verifyWebhookRequest>[0]).then(
        () => 'accepted',
        (error: PassportError) => `${error.code}:${String(error.details?.reason)}`,
      );
    expect(await check({})).toBe('accepted');
    expect(await check({ body: request.body.replace('MUNDO', 'MUNDX') })).toBe(
      'WEBHOOK_SIGNATURE_INVALID:signature_invalid',
    );
    expect(await check({ expectedServerPublicKey: new Uint8Array(32).fill(7) } as never)).toBe(
      'WEBHOOK_SIGNATURE_INVALID:key_not_expected',
    );
    expect(await check({ clock: { nowMs: () => Date.now() + 301_000 } })).toBe(
      'WEBHOOK_SIGNATURE_INVALID:timestamp_stale',
    );
  });

  it('takes the webhook_url from the passport metadata when the JWT carries none', async () => {
    const caller = await mintAndLogin(app);
    await testholaAfterMovingWebhook(app, caller, `${receiver.url}/late`);
    await dispatcher.idle();
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/late/hooks/agent', '/late/hooks/wake']);
  }, 15_000);

  // Found by a probe: the target came from the JWT's claims copied at login, so a holder who moved off a
  // lost endpoint kept receiving signed events there for the rest of the session.
  it('a webhook_url changed on chain is obeyed at once, although the JWT still carries the old one', async () => {
    const caller = await mintAndLogin(app, { metadata: { webhook_url: `${receiver.url}/old` } });
    const claims = JSON.parse(Buffer.from(caller.jwt.split('.')[1], 'base64url').toString('utf8')) as {
      passport_webhookurl: string;
    };
    expect(claims.passport_webhookurl).toBe(`${receiver.url}/old`);
    await testholaAfterMovingWebhook(app, caller, `${receiver.url}/new`);
    await dispatcher.idle();
    expect(receiver.received.map((r) => r.path).sort()).toEqual(['/new/hooks/agent', '/new/hooks/wake']);
  }, 15_000);

  // Found by a probe: the receiver's body was read to its end, so one that kept streaming held the
  // delivery (and its slot) for the whole 5 s timeout, which then recorded it as failed.
  it("the receiver's status is the outcome: a body that never ends does not hold the delivery", async () => {
    const streaming = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const timer = setInterval(() => res.write(Buffer.alloc(64 * 1024)), 20);
      res.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => streaming.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = streaming.address() as AddressInfo;
      const started = Date.now();
      await selfTest(app, { metadata: { webhook_url: `http://127.0.0.1:${port}` } });
      await dispatcher.idle();
      expect(Date.now() - started).toBeLessThan(4000);
      expect(dispatcher.recentOutcomes().slice(-2)).toEqual([
        expect.objectContaining({ outcome: 'delivered', status: 200 }),
        expect.objectContaining({ outcome: 'delivered', status: 200 }),
      ]);
    } finally {
      streaming.closeAllConnections();
      await closeServer(streaming);
    }
  });

  it('addresses outside webhook_cidr, private addresses and unsafe URLs receive nothing', async () => {
    const before = dispatcher.figures().refused;
    await selfTest(app, { metadata: { webhook_url: receiver.url, webhook_cidr: '10.0.0.0/8' } });
    await selfTest(app, { metadata: { webhook_url: 'http://10.1.2.3:9/x' } });
    await selfTest(app, { metadata: { webhook_url: 'http://169.254.169.254/latest' } });
    await selfTest(app, { metadata: { webhook_url: 'ftp://127.0.0.1/x' } });
    await selfTest(app, { metadata: { webhook_url: `http://user:pw@${new URL(receiver.url).host}` } });
    // Found by a probe: a malformed webhook_cidr was reported as outside_webhook_cidr.
    await selfTest(app, { metadata: { webhook_url: receiver.url, webhook_cidr: 'garbage' } });
    await dispatcher.idle();
    expect(receiver.received).toEqual([]);
    const recent = dispatcher.recentOutcomes().slice(-6);
    expect(recent.map((o) => o.outcome)).toEqual(Array(6).fill('refused'));
    expect(recent.map((o) => o.reason)).toEqual([
      'outside_webhook_cidr',
      'address_not_allowed:private',
      'address_not_allowed:metadata',
      'scheme_not_http',
      'userinfo',
      'webhook_cidr_unreadable',
    ]);
    expect(dispatcher.figures().refused - before).toBe(6);
  });

  it('a receiver error is logged and counted, never reflected in the API response', async () => {
    const failing = await startReceiver(500);
    try {
      const before = dispatcher.figures().failed;
      const { res } = await selfTest(app, { metadata: { webhook_url: failing.url } });
      expect(res.body.valid).toBe(true);
      await dispatcher.idle();
      expect(failing.received).toHaveLength(2);
      expect(dispatcher.figures().failed - before).toBe(2);
    } finally {
      await closeServer(failing.server);
    }
  });
});

// Found by a probe: the two deliveries of one event were signed in the same millisecond more often
// than not, so they carried one signature, and a receiver keeping the signatures it had seen (the core's
// replay option, one store for its gateway) refused /hooks/wake as a replay. A clock that stands still
// makes that certain.
describe('testhola webhook, with a clock that stands still', () => {
  const METRICS_TOKEN = 'webhook-metrics-token-0123456789abcdef';
  let app: TestApp;
  let dispatcher: WebhookDispatcher;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const clock = new FixedClock(Date.now());

  beforeAll(async () => {
    app = await startTestApp(
      { STORE: 'memory', WEBHOOK_TEST_ENABLED: 'true', WEBHOOK_ALLOW_LOOPBACK: 'true', METRICS_TOKEN },
      { clock },
    );
    dispatcher = app.app.get(WebhookDispatcher);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await closeServer(receiver.server);
    await app.close();
  });

  // The lines are stamped by the system clock: the app's clock stands a little after them.
  beforeEach(() => clock.set(Date.now() + 2000));

  it('each delivery has its own timestamp and signature: one replay store accepts every delivery once', async () => {
    await selfTest(app, { metadata: { webhook_url: receiver.url } });
    await selfTest(app, { metadata: { webhook_url: receiver.url } });
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(4);
    // Per event (one body, two hook paths): two timestamps, one millisecond apart.
    const byEvent = new Map<string, number[]>();
    for (const r of receiver.received)
      byEvent.set(r.body, [...(byEvent.get(r.body) ?? []), Number(r.headers['x-timestamp'])]);
    expect(byEvent.size).toBe(2);
    for (const stamps of byEvent.values()) expect(stamps.sort()).toEqual([clock.nowMs(), clock.nowMs() + 1]);
    const signatures = receiver.received.map((r) => r.headers['x-signature']);
    expect(new Set(signatures).size).toBe(4);
    const replay = new MemoryReplayStore();
    const server = serverIdentityOf(app);
    const verify = (request: Received) =>
      verifyWebhookRequest({
        headers: request.headers,
        body: request.body,
        clock,
        expectedServerPublicKey: server.signer.publicKey,
        replay,
      });
    for (const request of receiver.received) await expect(verify(request)).resolves.toBeDefined();
    await expect(verify(receiver.received[0])).rejects.toMatchObject({
      code: 'WEBHOOK_SIGNATURE_INVALID',
      details: { reason: 'replayed' },
    });
  });

  it('the Prometheus text counts deliveries by outcome', async () => {
    const delivered = async () => {
      const res = await fetch(`${app.baseUrl}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      expect(res.status).toBe(200);
      const match = /^passport_webhook_deliveries_total\{outcome="delivered"\} (\d+)$/m.exec(
        await res.text(),
      );
      return Number(match?.[1]);
    };
    const before = await delivered();
    await selfTest(app, { metadata: { webhook_url: receiver.url } });
    await dispatcher.idle();
    expect(await delivered()).toBe(before + 2);
  });
});

/** An https receiver with a self-signed certificate (openssl), answering 200. */
async function startTlsReceiver(): Promise<{
  url: string;
  hits: string[];
  server: HttpsServer;
  dir: string;
}> {
  const dir = mkdtempSync(path.join(tmpdir(), 'passport-tls-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  const hits: string[] = [];
  const server = createHttpsServer(
    { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
    (req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      req.on('end', () => res.writeHead(200).end());
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}`, hits, server, dir };
}

// The specification's WEBHOOK_TLS_SKIP_VERIFY (development only) was not implemented: a receiver with a
// self-signed certificate could not be reached at all in development.
describe.each([
  ['unset (the default): the certificate is checked, nothing is delivered', undefined, 'failed'],
  ['true (development only): delivered', 'true', 'delivered'],
])('WEBHOOK_TLS_SKIP_VERIFY %s', (_label, skip, outcome) => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startTlsReceiver>>;
  beforeAll(async () => {
    app = await startTestApp({
      STORE: 'memory',
      WEBHOOK_TEST_ENABLED: 'true',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      ...(skip ? { WEBHOOK_TLS_SKIP_VERIFY: skip } : {}),
    });
    receiver = await startTlsReceiver();
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    rmSync(receiver.dir, { recursive: true, force: true });
    await app.close();
  });

  it('a receiver with a self-signed certificate', async () => {
    const dispatcher = app.app.get(WebhookDispatcher);
    await selfTest(app, { metadata: { webhook_url: receiver.url } });
    await dispatcher.idle();
    expect(dispatcher.recentOutcomes().map((o) => o.outcome)).toEqual([outcome, outcome]);
    expect(receiver.hits.sort()).toEqual(outcome === 'delivered' ? ['/hooks/agent', '/hooks/wake'] : []);
  });
});

describe('testhola webhook without the loopback test setting', () => {
  let app: TestApp;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'memory', WEBHOOK_TEST_ENABLED: 'true' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await closeServer(receiver.server);
    await app.close();
  });

  it('refuses loopback targets, by address and by a name that resolves to loopback', async () => {
    const dispatcher = app.app.get(WebhookDispatcher);
    const port = new URL(receiver.url).port;
    await selfTest(app, { metadata: { webhook_url: receiver.url } });
    await selfTest(app, { metadata: { webhook_url: `http://localhost:${port}` } });
    await dispatcher.idle();
    expect(receiver.received).toEqual([]);
    const recent = dispatcher.recentOutcomes();
    expect(recent[0]).toMatchObject({
      outcome: 'refused',
      reason: 'address_not_allowed:loopback',
      url: null,
    });
    // One refusal per event, whether the address was written or resolved (a probe found a name's refusal
    // counted once per hook path, a literal's once).
    expect(recent.slice(1).map((o) => [o.outcome, o.reason, o.url])).toEqual([
      ['refused', 'address_not_allowed:loopback', null],
    ]);
    expect(dispatcher.figures().refused).toBe(2);
  });
});

describe('testhola webhook disabled (the default)', () => {
  it('sends nothing', async () => {
    const app = await startTestApp({ STORE: 'memory', WEBHOOK_ALLOW_LOOPBACK: 'true' });
    const receiver = await startReceiver();
    try {
      await selfTest(app, { metadata: { webhook_url: receiver.url } });
      const dispatcher = app.app.get(WebhookDispatcher);
      await dispatcher.idle();
      expect(receiver.received).toEqual([]);
      expect(dispatcher.recentOutcomes()).toEqual([]);
    } finally {
      await closeServer(receiver.server);
      await app.close();
    }
  });
});
