#!/usr/bin/env node
/**
 * Micro-benchmarks of the app's own per-request work, for A/B comparisons of two built trees (each with
 * `npx tsc -b tsconfig.build.json` run): the request id of a request without one, the metrics hook's
 * Prometheus recording, a response timestamp, the public rate limit's take (memory store) and its whole
 * onRequest check, and the JWT tier's guard on its usual request (a token
 * seen before, memory session store, passport in the chain cache), awaited as Nest's guard consumer
 * awaits it. Trees are measured in alternating rounds, each in a fresh process, and the medians printed:
 *
 *   node scripts/hot-path-micro.mjs [rounds] <tree> [<tree> ...]
 *
 * A tree without `isoTimestamp` (before it existed) is measured with `new Date().toISOString()`.
 */
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';

async function measure(root) {
  await import('reflect-metadata');
  const dist = (p) => path.join(root, p);
  const { resolveRequestId } = await import(dist('apps/api/dist/platform/http/request-id.js'));
  const { OperatorMetrics } = await import(dist('apps/api/dist/platform/metrics/operator-metrics.js'));
  const { EddsaJwtCodec } = await import(dist('apps/api/dist/session/eddsa-jwt.codec.js'));
  const { BearerAuthenticator } = await import(dist('apps/api/dist/session/bearer.authenticator.js'));
  const { BearerAuthGuard } = await import(dist('apps/api/dist/session/bearer-auth.guard.js'));
  const memory = await import(dist('libs/passport-core/dist/memory/index.js'));
  const { CachingChainReader } = await import(dist('libs/passport-adapters/dist/caching/index.js'));
  let iso = () => new Date().toISOString();
  try {
    ({ isoTimestamp: iso } = await import(dist('apps/api/dist/platform/http/iso-timestamp.js')));
  } catch {
    /* a tree from before isoTimestamp */
  }

  const timeSync = (fn, n = 300_000) => {
    for (let i = 0; i < 30_000; i++) fn(i);
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn(i);
    return Number(process.hrtime.bigint() - start) / n;
  };
  const headers = { host: 'x', 'user-agent': 'wrk' };
  const metrics = new OperatorMetrics();
  // The public rate limit's take (its default policy), for a few client addresses.
  const limits = new memory.MemoryRateLimitStore();
  const publicPolicy = { capacity: 6101, refillPerMs: 1101 / 60_000 };
  const peers = ['127.0.0.1', '10.0.0.2', '10.0.0.3', '::1'];
  let peer = 0;

  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const clock = { nowMs: () => Date.now() };
  const codec = new EddsaJwtCodec({
    secretSeed: Buffer.from(jwk.d, 'base64url'),
    publicKey: Buffer.from(jwk.x, 'base64url'),
    issuer: 'http://127.0.0.1:1',
    audience: 'owner.near',
    clock,
  });
  const sessions = new memory.MemorySessionStore();
  const tokenId = 'abcdefghijkl';
  const chain = new CachingChainReader(
    new memory.MemoryChainReader({ contractId: 'c', passports: [{ tokenId, ownerId: 'o', contractId: 'c', metadata: {}, revoked: false }] }),
  );
  const now = Math.floor(Date.now() / 1000);
  const sessionId = `sess_${tokenId}_01JABCDEFGHJKMNPQRSTVWXYZ0`;
  await sessions.create({
    sessionId,
    tokenId,
    ownerId: 'o',
    jti: 'j',
    createdAtMs: now * 1000,
    expiresAtMs: (now + 3600) * 1000,
    closedAtMs: null,
    closeReason: null,
    federatedFrom: null,
  });
  const jwt = await codec.sign({
    iss: 'http://127.0.0.1:1',
    sub: `sub=${tokenId}`,
    aud: 'owner.near',
    exp: now + 3000,
    iat: now,
    nbf: now,
    jti: 'j',
    session_id: sessionId,
    session_exp: now + 3600,
  });
  const guard = new BearerAuthGuard(new BearerAuthenticator(codec, sessions, clock, chain), { check: () => undefined }, { renewIfDue: () => null });
  // A new header string per request, as the HTTP parser makes one.
  const headerTexts = Array.from({ length: 1024 }, () => Buffer.from(`Bearer ${jwt}`).toString('latin1'));
  let k = 0;
  const context = () => {
    const request = { headers: { authorization: headerTexts[k++ & 1023] } };
    const response = {};
    return {
      switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
      getArgByIndex: (i) => [request, response][i],
    };
  };
  // As Nest's GuardsConsumer: a boolean is taken as it is, anything else awaited.
  const activate = async () => {
    const result = guard.canActivate(context());
    return typeof result === 'boolean' ? result : await result;
  };
  for (let i = 0; i < 20_000; i++) await activate();
  const n = 200_000;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await activate();
  const guardNs = Number(process.hrtime.bigint() - start) / n;

  return {
    requestIdNs: timeSync(() => resolveRequestId(headers)),
    recordRequestNs: timeSync((i) => metrics.recordRequest('/health', 'GET', 200, 1.2 + (i & 7))),
    timestampNs: timeSync(() => iso()),
    publicTakeNs: timeSync(() => limits.takeSync(`public:${peers[(peer++) & 3]}`, publicPolicy, Date.now())),
    guardNs,
  };
}

if (process.argv[2] === '--child') {
  console.log(JSON.stringify(await measure(path.resolve(process.argv[3]))));
} else {
  const args = process.argv.slice(2);
  const rounds = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 3;
  if (args.length === 0) {
    console.error('usage: node scripts/hot-path-micro.mjs [rounds] <tree> [<tree> ...]');
    process.exit(2);
  }
  const runs = new Map(args.map((t) => [t, []]));
  for (let r = 0; r < rounds; r++) {
    for (const tree of args) {
      const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, '--child', tree], { encoding: 'utf8' });
      runs.get(tree).push(JSON.parse(out.trim().split('\n').pop()));
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [tree, results] of runs) {
    const row = Object.fromEntries(Object.keys(results[0]).map((key) => [key, Math.round(median(results.map((x) => x[key])))]));
    console.log(`${tree}: ${JSON.stringify(row)} (ns, medians of ${rounds})`);
  }
}
