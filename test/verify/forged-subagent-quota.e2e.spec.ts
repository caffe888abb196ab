/**
 * A finding of the hostile probe (2026-11-23), over real HTTP against the real app: a subagent line
 * verifies against the key embedded in it (its delegation is the relying party's check), so anyone
 * with any key can make one naming any passport as issuer. Such lines used to be charged to the
 * issuer's per-sender quota, so a stranger could use the quota up and have the issuer's own genuine
 * lines refused (429 REPLAY_QUOTA_EXCEEDED) for a day. A subagent line is now charged to its issuer and
 * embedded key together.
 */
import { expectErrorEnvelope } from '../support/error-envelope.expect.js';
import { mintPassport, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from './hola-lines.js';

const MAX_PER_SENDER = 3;

describe.each(['memory', 'sqlite'])('forged subagent lines and the per-sender bound (%s store)', (store) => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;
  let victim: { tokenId: string; key: ReturnType<typeof newKey> };

  beforeAll(async () => {
    app = await startTestApp({ STORE: store, REPLAY_MAX_PER_SENDER: String(MAX_PER_SENDER) });
    post = postJson(app);
    const key = newKey();
    victim = { tokenId: (await mintPassport(app, { owner: key })).tokenId, key };
  });
  afterAll(() => app.close());

  const verify = async (hola: string) => post('/api/identity/verify', { hola });
  const verified = async (hola: string) => ((await verify(hola)).body as { verified: boolean }).verified;

  it("a stranger's key naming the victim as issuer uses up its own quota, not the victim's", async () => {
    const stranger = newKey(); // no passport, no delegation
    const forged = () =>
      holaLine(app, { sender: victim.tokenId, signer: stranger.signer, subagent: { delegateId: 'evil' } });
    for (let i = 0; i < MAX_PER_SENDER; i++) expect(await verified(forged())).toBe(true);
    const overQuota = await verify(forged());
    expect(expectErrorEnvelope(overQuota, 'REPLAY_QUOTA_EXCEEDED').error.details).toEqual({
      maxPerSender: MAX_PER_SENDER,
    });

    // The victim's own lines and its genuine subagent's still verify, each against a quota of its own.
    for (let i = 0; i < MAX_PER_SENDER; i++) {
      expect(await verified(holaLine(app, { sender: victim.tokenId, signer: victim.key.signer }))).toBe(true);
    }
    const delegate = newKey();
    expect(
      await verified(
        holaLine(app, { sender: victim.tokenId, signer: delegate.signer, subagent: { delegateId: 'bot' } }),
      ),
    ).toBe(true);
    // And the victim's standard lines are bounded as before.
    const victimOver = await verify(holaLine(app, { sender: victim.tokenId, signer: victim.key.signer }));
    expectErrorEnvelope(victimOver, 'REPLAY_QUOTA_EXCEEDED');
  });
});
