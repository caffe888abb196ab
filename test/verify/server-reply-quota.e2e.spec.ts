/**
 * Hostile-holder probe (2026-11-28), over real HTTP against the real app: the server signs a HOLA line
 * on demand for any logged-in caller (`POST /api/testhola` answers with `hola`, "the server's own line ...
 * it verifies with /api/identity/verify", docs/verification.md). Verifying those lines charges the
 * server passport's per-sender replay quota, so one holder can collect REPLAY_MAX_PER_SENDER of them
 * (paying with throwaway-key subagent lines, which cost it no quota of its own), verify them, and every
 * other holder's reply from then on was refused 429 REPLAY_QUOTA_EXCEEDED for a day (such lines are now
 * charged to the server and their recipient together). The rule the project follows (docs/protocol.md §2, storage.md "other senders are unaffected"): nobody uses up
 * another sender's quota.
 */
import { mintAndLogin, bearer, newKey } from '../support/passports.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { holaLine, postJson } from './hola-lines.js';

const MAX_PER_SENDER = 3;

describe("the server's testhola replies and the per-sender bound", () => {
  let app: TestApp;
  let post: ReturnType<typeof postJson>;

  beforeAll(async () => {
    app = await startTestApp({ STORE: 'sqlite', REPLAY_MAX_PER_SENDER: String(MAX_PER_SENDER) });
    post = postJson(app);
  });
  afterAll(() => app.close());

  it("one holder cannot use up the server passport's quota for every other holder", async () => {
    const attacker = await mintAndLogin(app);
    // Server replies bought with throwaway-key subagent lines (no quota of the attacker's is spent).
    for (let i = 0; i < MAX_PER_SENDER; i++) {
      const paid = holaLine(app, {
        sender: attacker.tokenId,
        signer: newKey().signer,
        subagent: { delegateId: 'x' },
      });
      const reply = await post('/api/testhola', { hola: paid }, bearer(attacker.jwt));
      expect(reply.status).toBe(200);
      const burned = await post('/api/identity/verify', { hola: (reply.body as { hola: string }).hola });
      expect((burned.body as { verified: boolean }).verified).toBe(true);
    }

    // An honest holder's mutual check: its testhola reply must verify at the API, as documented.
    const victim = await mintAndLogin(app);
    const own = holaLine(app, { sender: victim.tokenId, signer: victim.key.signer });
    const reply = await post('/api/testhola', { hola: own }, bearer(victim.jwt));
    expect(reply.status).toBe(200);
    const check = await post(
      '/api/identity/verify',
      { hola: (reply.body as { hola: string }).hola },
      bearer(victim.jwt),
    );
    expect(check.status).toBe(200); // was 429 REPLAY_QUOTA_EXCEEDED
    expect((check.body as { verified: boolean }).verified).toBe(true);
  });
});
