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

  // From a mutation probe: the bounds were tested far from their edges.
  it('a session at its expiry instant is expired already; a millisecond before, it is revoked', async () => {
    const sessions = new MemorySessionStore();
    const record = sampleSessionRecord(3, { createdAtMs: 1000, expiresAtMs: 5000 });
    await sessions.create(record);
    const at = (nowMs: number) => new SessionsAdminController(sessions, { nowMs: () => nowMs });
    await expect(at(5000).revoke({ sessionId: record.sessionId }, admin, 'r')).resolves.toMatchObject({
      revoked: false,
      reason: 'expired',
    });
    await expect(at(4999).revoke({ sessionId: record.sessionId }, admin, 'r')).resolves.toMatchObject({
      revoked: true,
    });
  });

  it('a session id of 200 characters is looked up; 201 is VALIDATION_FAILED on sessionId', async () => {
    const controller = new SessionsAdminController(new MemorySessionStore(), { nowMs: () => 5000 });
    await expect(controller.revoke({ sessionId: 's'.repeat(200) }, admin, 'r')).rejects.toMatchObject({
      code: 'SESSION_NOT_FOUND',
    });
    await expect(controller.revoke({ sessionId: 's'.repeat(201) }, admin, 'r')).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { field: 'sessionId' },
    });
  });
});
