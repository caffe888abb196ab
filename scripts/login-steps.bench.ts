/**
 * Per-step micro-benchmark of a login's costly steps, in one process, each step's variants measured in
 * alternating rounds (so machine load hits them alike) and reported as a ratio to the raw node:crypto
 * Ed25519 verify measured in the same rounds:
 * - JWT signing: jose's SignJWT (WebCrypto) vs node:crypto with a key object built once, on the calling
 *   thread and (EddsaJwtCodec) on libuv's thread pool;
 * - the family check: checkFamilyMembership verifying every time vs behind a FamilyVerdictCache (hit);
 * - the used challenge + session: two SQLite transactions (recordIfAbsent, create) vs SqliteLoginRecorder
 *   (one; and 16 concurrent logins sharing one group commit), and the memory stores.
 *
 *   npx tsc -b tsconfig.build.json && SWC_NODE_PROJECT=tsconfig.json \
 *     node --import @swc-node/register/esm-register scripts/login-steps.bench.ts [rounds]
 */
import { generateKeyPairSync, randomBytes, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, importJWK } from 'jose';
import {
  FamilyVerdictCache,
  MemoryReplayStore,
  sequentialLoginRecorder,
  signFamilyMetadata,
  systemClock,
} from '@passport/core';
import { checkFamilyMembership, familyRootTokenId, parseServiceProviderId } from '@passport/core/family';
import { MemoryChainReader, MemorySessionStore, sampleSessionRecord } from '@passport/core/testing';
import { implicitAccountId } from '@passport/core/codecs';
import { createNodeSigner, createNodeVerifier } from '@passport/core/node';
import {
  SqliteDatabase,
  SqliteLoginRecorder,
  SqliteReplayStore,
  SqliteSessionStore,
} from '@passport/adapters/sqlite';
import { EddsaJwtCodec } from '../apps/api/src/session/eddsa-jwt.codec.js';

const rounds = Number(process.argv[2] ?? 5);
const ROUND_MS = 400;

/** Operations per second of `op` (sync or async) over `ms`. */
async function rate(op: (i: number) => unknown, ms = ROUND_MS): Promise<number> {
  let n = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  while (performance.now() < end) {
    for (let k = 0; k < 16; k++) await op(n++);
  }
  return (n * 1000) / (performance.now() - start);
}

async function main(): Promise<void> {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const messages = Array.from({ length: 64 }, () => randomBytes(120));
  const signatures = messages.map((m) => cryptoSign(null, m, privateKey));
  const rawVerify = (i: number) => cryptoVerify(null, messages[i % 64], publicKey, signatures[i % 64]);

  // JWT signing.
  const seed = new Uint8Array(privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32));
  const pub = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32));
  const codec = new EddsaJwtCodec({
    secretSeed: seed,
    publicKey: pub,
    issuer: 'https://x.test',
    audience: 'a',
    clock: systemClock,
  });
  const joseKey = await importJWK(
    {
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(pub).toString('base64url'),
      d: Buffer.from(seed).toString('base64url'),
    },
    'EdDSA',
  );
  const claims = (i: number) => ({
    iss: 'https://x.test',
    sub: 'bc=local;sc=passport.test;id=devroot;sub=bjbvcjzqbdsj',
    aud: 'a',
    iat: 1_800_000_000 + i,
    nbf: 1_800_000_000,
    exp: 1_800_003_600,
    jti: `01J${i}`,
    session_id: `sess_${i}`,
  });

  // Family check against a memory chain holding a root and a passport it signed.
  const root = createNodeSigner(new Uint8Array(randomBytes(32)));
  const chain = new MemoryChainReader({ contractId: 'passport.test' });
  const familyText = 'bc=local;sc=passport.test;id=devroot';
  const family = parseServiceProviderId(familyText)!;
  chain.addPassport({
    tokenId: familyRootTokenId(family, 'devroot'),
    ownerId: implicitAccountId(root.publicKey),
    contractId: 'passport.test',
    revoked: false,
    metadata: {},
  });
  const metadata: Record<string, string> = { serviceprovider_id: familyText, max_requests: '10' };
  metadata.serviceprovider_signature = signFamilyMetadata(metadata, 'bjbvcjzqbdsj', root);
  const verifier = createNodeVerifier();
  const cached = new FamilyVerdictCache(verifier, { ttlMs: 5000, clock: systemClock });
  const membership = (v: typeof verifier) => async () => {
    if (
      !(await checkFamilyMembership({ chain, verifier: v, family, metadata, tokenId: 'bjbvcjzqbdsj' })).member
    )
      throw new Error('not a member');
  };

  // Challenge + session writes.
  const dir = mkdtempSync(path.join(tmpdir(), 'passport-login-steps-'));
  const db = SqliteDatabase.openInDataDir(dir);
  const replay = new SqliteReplayStore(db);
  const sessions = new SqliteSessionStore(db, { maxEntries: 10_000_000 });
  const combined = new SqliteLoginRecorder(db, replay, sessions);
  const memReplay = new MemoryReplayStore({ maxEntries: 10_000_000 });
  const memSessions = new MemorySessionStore({ maxEntries: 10_000_000 });
  const memRecorder = sequentialLoginRecorder(memReplay, memSessions, (k) => memReplay.forget(k));
  let seq = 0;
  const login = () => {
    seq++;
    const tokenId = `tok${String(seq % 50).padStart(9, 'a')}`;
    return {
      challenge: { key: `login|${tokenId}|${seq}`, nowMs: Date.now(), expiresAtMs: Date.now() + 300_000 },
      session: sampleSessionRecord(seq, {
        sessionId: `sess_${seq}`,
        tokenId,
        createdAtMs: Date.now(),
        expiresAtMs: Date.now() + 3_600_000,
      }),
    };
  };

  const steps: Record<string, (i: number) => unknown> = {
    'raw node:crypto Ed25519 verify': rawVerify,
    'JWT sign: jose SignJWT (WebCrypto)': (i) =>
      new SignJWT(claims(i)).setProtectedHeader({ alg: 'EdDSA', typ: 'JWT' }).sign(joseKey),
    // The codec signs on libuv's thread pool: one at a time, this is its latency (hand-off included), and
    // its event-loop CPU is a few µs; the one-shot on the calling thread is what it did before.
    'JWT sign: node:crypto one-shot on the calling thread': (i) =>
      `${Buffer.from(JSON.stringify(claims(i))).toString('base64url')}.${cryptoSign(null, Buffer.from(JSON.stringify(claims(i))), privateKey).toString('base64url')}`,
    'JWT sign: EddsaJwtCodec (thread pool; one at a time, wall time)': (i) => codec.sign(claims(i)),
    'family check, verified every time': membership(verifier),
    'family check, FamilyVerdictCache hit': membership(cached),
    'challenge + session: SQLite, two transactions': async () => {
      const l = login();
      await replay.recordIfAbsent(l.challenge.key, l.challenge.nowMs, l.challenge.expiresAtMs);
      await sessions.create(l.session);
    },
    'challenge + session: SQLite, one transaction (SqliteLoginRecorder)': () => {
      const l = login();
      return combined.recordLogin(l.challenge, l.session);
    },
    'challenge + session: SQLite, 16 logins of one turn (SqliteLoginRecorder group commit), per login': () =>
      Promise.all(
        Array.from({ length: 16 }, () => {
          const l = login();
          return combined.recordLogin(l.challenge, l.session);
        }),
      ),
    'challenge + session: memory (recorder)': () => {
      const l = login();
      return memRecorder.recordLogin(l.challenge, l.session);
    },
  };
  const sums = new Map<string, number[]>(Object.keys(steps).map((k) => [k, []]));
  for (const op of Object.values(steps)) await rate(op, 150); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const [name, op] of Object.entries(steps)) sums.get(name)!.push(await rate(op));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const raw = median(sums.get('raw node:crypto Ed25519 verify')!);
  console.log(
    `\nNode ${process.version}; ${rounds} alternating rounds of ${ROUND_MS} ms per step (medians)\n`,
  );
  console.log('| step | ops/s | µs/op | cost in raw verifies |');
  console.log('|---|---|---|---|');
  for (const [name, xs] of sums) {
    // A step that does 16 logins per call is reported per login.
    const ops = median(xs) * (name.includes('16 logins') ? 16 : 1);
    console.log(`| ${name} | ${Math.round(ops)} | ${(1e6 / ops).toFixed(1)} | ${(raw / ops).toFixed(2)} |`);
  }
  sessions.dispose();
  replay.dispose();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
