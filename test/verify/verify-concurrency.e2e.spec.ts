/**
 * The single-use record under concurrency (docs/protocol.md §2): of 50 simultaneous verifications of one
 * valid line exactly one is `verified: true` and the other 49 report `nonce_replay`, on both store
 * adapters and with the signature check on the thread pool (the default) or on the event loop; and
 * `/api/identity/verify` and `/api/testhola` share the record.
 */
import { bearer, mintAndLogin, mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from './hola-lines.js';

describe.each([
  ['sqlite', 'true'],
  ['memory', 'true'],
  ['sqlite', 'false'],
])('50 concurrent verifications of one line (STORE=%s, HOLA_VERIFY_THREADPOOL=%s)', (store, threadPool) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ STORE: store, HOLA_VERIFY_THREADPOOL: threadPool });
  });
  afterAll(() => app.close());

  it('exactly one is verified; the others are nonce_replay with the first acceptance time', async () => {
    const key = newKey();
    const { tokenId } = await mintPassport(app, { owner: key });
    const post = postJson(app);
    const line = holaLine(app, { sender: tokenId, signer: key.signer });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => post('/api/identity/verify', { hola: line })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const verified = results.filter((r) => r.body.verified === true);
    expect(verified).toHaveLength(1);
    const replays = results.filter((r) => r.body.verified === false);
    expect(replays).toHaveLength(49);
    for (const r of replays) {
      expect(r.body.failureReasons).toEqual(['nonce_replay']);
      expect(r.body.nonceReplayDetails.firstSeenAt).toBe(replays[0].body.nonceReplayDetails.firstSeenAt);
    }
  });

  it('verify and testhola share the record, in both directions', async () => {
    const caller = await mintAndLogin(app);
    const post = postJson(app);
    const first = holaLine(app, { sender: caller.tokenId, signer: caller.key.signer });
    expect((await post('/api/testhola', { hola: first }, bearer(caller.jwt))).status).toBe(200);
    expect((await post('/api/identity/verify', { hola: first })).body.failureReasons).toEqual([
      'nonce_replay',
    ]);

    const second = holaLine(app, { sender: caller.tokenId, signer: caller.key.signer });
    expect((await post('/api/identity/verify', { hola: second })).body.verified).toBe(true);
    const replay = await post('/api/testhola', { hola: second }, bearer(caller.jwt));
    expect(replay.status).toBe(400);
    expect(replay.body.error).toMatchObject({
      code: 'HOLA_VALIDATION_FAILED',
      details: { reasonCode: 'nonce_replay', stage: 'nonce_replay_validation' },
    });
  });
});
