/**
 * A process that records logins into a SQLite file as the API server does (the backend's database
 * options, the login recorder's batches): run with `node --import tsx`. argv: <data dir> <logins>
 * <passports>: the logins are spread over that many passports (one passport past its open-session bound
 * closes its oldest on every login), 50 a batch. <logins> 0: it writes until it is killed, and after each
 * batch sends the parent (IPC) `{ answered }`, each answered login's [challenge key, session id].
 */
import { randomBytes } from 'node:crypto';
import { sampleSessionRecord } from '@passport/core/testing';
import { createStoreBackend } from '../../../apps/api/src/platform/store/store-backend.js';

const [dataDir, logins, passports] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const backend = createStoreBackend({ store: 'sqlite', dataDir });
const recorder = backend.loginRecorder!;
const nowMs = Date.now();
for (let done = 0; logins === 0 || done < logins; done += 50) {
  const batch = Array.from({ length: logins === 0 ? 50 : Math.min(50, logins - done) }, (_, i) => {
    const n = done + i;
    const tokenId = `passport${String(n % passports).padStart(4, '0')}`;
    const challenge = {
      key: `login|${tokenId}|${randomBytes(16).toString('hex')}`,
      nowMs,
      expiresAtMs: nowMs + 300_000,
    };
    const session = sampleSessionRecord(n, {
      sessionId: `sess_${tokenId}_${randomBytes(13).toString('hex')}`,
      tokenId,
      createdAtMs: nowMs + n,
      expiresAtMs: nowMs + 3_600_000,
    });
    return { challenge, session };
  });
  const outcomes = await Promise.all(
    batch.map(({ challenge, session }) => recorder.recordLogin(challenge, session)),
  );
  if (outcomes.some((outcome) => !outcome.recorded)) throw new Error('a fresh challenge was not recorded');
  process.send?.({ answered: batch.map(({ challenge, session }) => [challenge.key, session.sessionId]) });
}
backend.close();
