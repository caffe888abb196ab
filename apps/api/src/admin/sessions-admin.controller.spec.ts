/**
 * Revoking a session that has already expired changes nothing: the answer is `revoked: false` with
 * reason `expired`, and the session keeps its end (it is not rewritten as closed by an administrator).
 */
import { MemorySessionStore } from '@passport/core/memory';
import { sampleSessionRecord } from '@passport/core/testing';
import { type AuthContext } from '../session/auth-context.js';
import { SessionsAdminController } from './sessions-admin.controller.js';

describe('SessionsAdminController.revoke', () => {
  const admin = { tokenId: 'adminadminad', sessionId: 'sess_admin' } as AuthContext;

  it('an expired session: revoked false, reason expired, and the session is left as it was', async () => {
    const sessions = new MemorySessionStore();
    const record = sampleSessionRecord(1, { createdAtMs: 1000, expiresAtMs: 2000 });
    await sessions.create(record);
    const controller = new SessionsAdminController(sessions, { nowMs: () => 5000 });
    await expect(controller.revoke({ sessionId: record.sessionId }, admin, 'req-1')).resolves.toEqual({
      sessionId: record.sessionId,
      revoked: false,
      reason: 'expired',
      requestId: 'req-1',
    });
    await expect(sessions.get(record.sessionId)).resolves.toMatchObject({
      closedAtMs: null,
      closeReason: null,
    });
  });

  it('an open session is closed with the reason given', async () => {
    const sessions = new MemorySessionStore();
    const record = sampleSessionRecord(2, { createdAtMs: 1000, expiresAtMs: 9000 });
    await sessions.create(record);
    const controller = new SessionsAdminController(sessions, { nowMs: () => 5000 });
    await expect(
      controller.revoke({ sessionId: record.sessionId, reason: 'compromised' }, admin, 'req-2'),
    ).resolves.toMatchObject({ revoked: true, reason: 'compromised' });
    await expect(sessions.get(record.sessionId)).resolves.toMatchObject({
      closedAtMs: 5000,
      closeReason: 'compromised',
    });
  });
});
