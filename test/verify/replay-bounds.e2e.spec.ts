/**
 * The replay-store eviction attack of the hostile probe, over real HTTP against the real app with small
 * configured caps: an attacker verifying many of its own lines must never make a victim's verified
 * line verify a second time. The store refuses instead of evicting (503 REPLAY_STORE_FULL), one sender
 * is bounded (429 REPLAY_QUOTA_EXCEEDED), health reports a full store, and the metrics count refusals.
 */
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { bearer, login, mintAndLogin, mintPassport, newKey, type TestKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from './hola-lines.js';

/** The admin's login challenge (1) + the victim (1) + attackers 1 and 2 (4 each) + attacker 3 (3). */
const MAX_RECORDS = 13;
const MAX_PER_SENDER = 4;

describe.each(['memory', 'sqlite'])('replay bounds (%s store)', (store) => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  let admin: string;
  const senders: { tokenId: string; key: TestKey }[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      STORE: store,
      REPLAY_MAX_RECORDS: String(MAX_RECORDS),
      REPLAY_MAX_PER_SENDER: String(MAX_PER_SENDER),
    });
    post = postJson(app);
    admin = (
      await mintAndLogin(app, {
        metadata: {
          permissioned_routes: JSON.stringify({ entities: { methods: { '/api/metrics': '60' } } }),
        },
      })
    ).jwt;
    for (let i = 0; i < 5; i++) {
      const key = newKey();
      senders.push({ tokenId: (await mintPassport(app, { owner: key })).tokenId, key });
    }
  });
  afterAll(() => app.close());

  const lineOf = (n: number) => holaLine(app, { sender: senders[n].tokenId, signer: senders[n].key.signer });
  const verify = (hola: string) => post('/api/identity/verify', { hola });

  it('bounds one sender, then refuses new lines when full, and never verifies a line twice', async () => {
    // The victim's line verifies once.
    const victimLine = lineOf(0);
    expect(((await verify(victimLine)).body as { verified: boolean }).verified).toBe(true);

    // One attacker passport: its fifth live record is refused; it cannot fill the store alone.
    for (let i = 0; i < MAX_PER_SENDER; i++) {
      expect(((await verify(lineOf(1))).body as { verified: boolean }).verified).toBe(true);
    }
    const overQuota = await verify(lineOf(1));
    expect(expectErrorEnvelope(overQuota, 'REPLAY_QUOTA_EXCEEDED').error.details).toEqual({
      maxPerSender: MAX_PER_SENDER,
    });
    // Like every 429 (docs/protocol.md §5): a Retry-After, and the connection closed (found by a probe:
    // this one had neither).
    expect(overQuota.headers.get('retry-after')).toBe('60');
    expect(overQuota.headers.get('connection')).toBe('close');

    // Two more attacker passports fill the store (login challenges share it); the next new line is refused.
    for (let i = 0; i < MAX_PER_SENDER; i++)
      expect(((await verify(lineOf(2))).body as { verified: boolean }).verified).toBe(true);
    for (let i = 0; i < 3; i++)
      expect(((await verify(lineOf(3))).body as { verified: boolean }).verified).toBe(true);
    const full = await verify(lineOf(4));
    expectErrorEnvelope(full, 'REPLAY_STORE_FULL');

    // The victim's line is still refused as a replay: no live record was evicted.
    const again = (await verify(victimLine)).body as { verified: boolean; failureReasons: string[] };
    expect(again.verified).toBe(false);
    expect(again.failureReasons).toEqual(['nonce_replay']);
  });

  it('health reports the full replay store, and the metrics count the refusals', async () => {
    const health = (await (await fetch(`${app.baseUrl}/health`)).json()) as {
      status: string;
      checks: { store: { status: string; replay: Record<string, unknown> } };
    };
    expect(health.status).toBe('degraded');
    expect(health.checks.store).toMatchObject({
      status: 'fail',
      replay: {
        records: MAX_RECORDS,
        maxRecords: MAX_RECORDS,
        refusedQuota: 1,
        refusedFull: 1,
        problem: 'replay store full',
      },
    });
    const metrics = (await (
      await fetch(`${app.baseUrl}/api/metrics`, { headers: bearer(admin) })
    ).json()) as {
      verify: { refused: Record<string, number> };
    };
    expect(metrics.verify.refused).toEqual({ REPLAY_QUOTA_EXCEEDED: 1, REPLAY_STORE_FULL: 1 });
    const prometheus = await (
      await fetch(`${app.baseUrl}/api/metrics`, { headers: { ...bearer(admin), accept: 'text/plain' } })
    ).text();
    expect(prometheus).toContain('passport_verify_refused_total{code="REPLAY_STORE_FULL"} 1');
  });
});

// Found by probes: subagent lines (a throwaway key naming any live passport, each key its own quota)
// filled the store and refused every passport's lines for a day; a store full of lines refused every
// login. Subagent lines may fill half of it; login challenges have a reserve above the cap.
describe.each(['memory', 'sqlite'])('store shares (%s store)', (store) => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  const owner = newKey();
  let tokenId: string;

  beforeAll(async () => {
    app = await startTestApp({ STORE: store, REPLAY_MAX_RECORDS: '20', REPLAY_MAX_PER_SENDER: '1000' });
    post = postJson(app);
    tokenId = (await mintPassport(app, { owner })).tokenId;
  });
  afterAll(() => app.close());

  const verify = async (hola: string) =>
    (await post('/api/identity/verify', { hola })) as { status: number; headers: Headers; body: any };
  const forged = () =>
    holaLine(app, { sender: tokenId, signer: newKey().signer, subagent: { delegateId: 'x' } });

  it("subagent lines stop at half the store, the passport's own lines at the cap, and its login still gets in", async () => {
    for (let i = 0; i < 10; i++) expect((await verify(forged())).body.verified).toBe(true);
    expectErrorEnvelope(await verify(forged()), 'REPLAY_STORE_FULL');
    for (let i = 0; i < 10; i++)
      expect((await verify(holaLine(app, { sender: tokenId, signer: owner.signer }))).body.verified).toBe(
        true,
      );
    expectErrorEnvelope(
      await verify(holaLine(app, { sender: tokenId, signer: owner.signer })),
      'REPLAY_STORE_FULL',
    );
    const loggedIn = await login(app.baseUrl, { identifier: tokenId, key: owner });
    expect(loggedIn.status).toBe(200);
  });
});
