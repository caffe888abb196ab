/**
 * A separate process contending for one SQLite store file (run with `node --import tsx`), modelling
 * another app instance. It opens its own connection, reports `ready`, waits for `go`, then runs its
 * operations as fast as it can and reports every outcome to the parent over IPC.
 *
 * argv: <file> replay <keyCount> <rounds>   → recordIfAbsent on keys k0..k(n-1), `rounds` times each
 *       <file> replay-batch <keyCount> <rounds> → the same, each round's calls made at once (so that
 *         they are decided together, in one group-committed transaction per event-loop turn)
 *       <file> take <key> <takes> <capacity> → `takes` takes from one bucket that never refills
 *       <file> replay-capped <keyCount> <maxPerOwner> <maxEntries> → keys of its own (by pid), all
 *         charged to one shared owner with that quota, into a store of that cap, 20 calls per turn
 *       <file> login <logins> <maxOpenPerPassport> <maxSessions> <shared|own> → logins through the SQLite
 *         login recorder (challenge + session, group-committed), 5 per turn, all of one shared passport
 *         or each of a passport of its own; reports how many were stored and the refusals by name
 */
import {
  SqliteDatabase,
  SqliteLoginRecorder,
  SqliteRateLimitStore,
  SqliteReplayStore,
  SqliteSessionStore,
} from '@passport/adapters/sqlite';

const [file, op, a, b, c] = process.argv.slice(2);
const db = SqliteDatabase.open(file);
const replay = new SqliteReplayStore(db, { sweepIntervalMs: 0 });
const rateLimit = new SqliteRateLimitStore(db, { sweepIntervalMs: 0 });

async function run(): Promise<unknown> {
  if (op === 'replay') {
    const recorded: string[] = [];
    for (let round = 0; round < Number(b); round++) {
      for (let k = 0; k < Number(a); k++) {
        const outcome = await replay.recordIfAbsent(`k${k}`, 1000, 1_000_000);
        if (outcome.recorded) recorded.push(`k${k}`);
      }
    }
    return { recorded };
  }
  if (op === 'replay-batch') {
    const recorded: string[] = [];
    for (let round = 0; round < Number(b); round++) {
      const keys = Array.from({ length: Number(a) }, (_, k) => `k${k}`);
      const outcomes = await Promise.all(keys.map((key) => replay.recordIfAbsent(key, 1000, 1_000_000)));
      keys.forEach((key, i) => outcomes[i].recorded && recorded.push(key));
    }
    return { recorded };
  }
  if (op === 'replay-capped') {
    const capped = new SqliteReplayStore(db, { sweepIntervalMs: 0, maxEntries: Number(c) });
    const quota = { owner: 'shared', maxPerOwner: Number(b) };
    let recorded = 0;
    const refused: Record<string, number> = {};
    for (let start = 0; start < Number(a); start += 20) {
      const keys = Array.from(
        { length: Math.min(20, Number(a) - start) },
        (_, k) => `${process.pid}-k${start + k}`,
      );
      const settled = await Promise.allSettled(
        keys.map((key) => capped.recordIfAbsent(key, 1000, 1_000_000, quota)),
      );
      for (const outcome of settled) {
        if (outcome.status === 'fulfilled') recorded += outcome.value.recorded ? 1 : 0;
        else {
          const code = (outcome.reason as { code?: string }).code ?? String(outcome.reason);
          refused[code] = (refused[code] ?? 0) + 1;
        }
      }
    }
    capped.dispose();
    return { recorded, refused };
  }
  if (op === 'login') {
    const sessions = new SqliteSessionStore(db, {
      sweepIntervalMs: 0,
      maxOpenPerPassport: Number(b),
      maxEntries: Number(c),
    });
    const recorder = new SqliteLoginRecorder(db, replay, sessions);
    const shared = process.argv[7] === 'shared';
    let stored = 0;
    const refused: Record<string, number> = {};
    for (let start = 0; start < Number(a); start += 5) {
      const batch = Array.from({ length: Math.min(5, Number(a) - start) }, (_, k) => {
        const n = start + k;
        const tokenId = shared ? 'sharedpasspt' : `p${process.pid}-${n}`;
        const nowMs = 1000 + n;
        return recorder.recordLogin(
          { key: `login|${process.pid}|${n}`, nowMs, expiresAtMs: 1_000_000 },
          {
            sessionId: `sess_${process.pid}_${n}`,
            tokenId,
            ownerId: 'owner.near',
            jti: `jti_${process.pid}_${n}`,
            createdAtMs: nowMs,
            expiresAtMs: 1_000_000,
            closedAtMs: null,
            closeReason: null,
            federatedFrom: null,
            renewalCount: 0,
            lastRenewedAtMs: null,
          },
        );
      });
      for (const outcome of await Promise.allSettled(batch)) {
        if (outcome.status === 'fulfilled') stored += outcome.value.recorded ? 1 : 0;
        else {
          const name = (outcome.reason as Error).name ?? String(outcome.reason);
          refused[name] = (refused[name] ?? 0) + 1;
        }
      }
    }
    recorder.dispose();
    sessions.dispose();
    return { stored, refused };
  }
  if (op === 'take') {
    let allowed = 0;
    for (let i = 0; i < Number(b); i++) {
      const result = await rateLimit.take(a, { capacity: Number(c), refillPerMs: 0 }, 1000);
      if (result.allowed) allowed++;
    }
    return { allowed };
  }
  throw new Error(`unknown op ${op}`);
}

process.on('message', (message) => {
  if (message !== 'go') return;
  run()
    .then((result) => process.send?.({ result }))
    .catch((error: unknown) => process.send?.({ error: String(error) }))
    .finally(() => {
      replay.dispose();
      rateLimit.dispose();
      db.close();
      process.disconnect();
    });
});
process.send?.('ready');
