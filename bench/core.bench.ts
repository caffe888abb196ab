/**
 * Core protocol benchmark: ops/s of HOLA parsing, the checksum, raw node:crypto Ed25519 verify, the
 * two policy lanes, and the whole `verifyHola` use case with the in-memory ports, plus the ratio
 * verifyHola ÷ raw node:crypto verify measured in the same run (target ≥ 0.9: the use case should
 * cost little more than its one signature check).
 *
 * Run: `npx tsx bench/core.bench.ts` (single thread; keep the machine otherwise quiet).
 */
import { createHash, createPublicKey, verify as rawVerify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  buildHolaLine,
  createHolaVerifier,
  createNobleVerifier,
  holaChecksum,
  MemoryReplayStore,
  parseHola,
  utf8,
} from '../libs/passport-core/src/index.js';
import { FixedClock, MemoryChainReader } from '../libs/passport-core/src/testing/index.js';
import { implicitAccountId } from '../libs/passport-core/src/codecs/index.js';
import { createNodeSigner, createNodeVerifier } from '../libs/passport-core/src/node/index.js';
import { median } from './support/median.js';

const SERVICE_HOST = 'passport.bench:3000';
const T0 = Date.parse('2026-04-19T10:47:00.000Z');
const LINES = 60_000;
/** Interleaved rounds of 25 ms raw + 25 ms verifyHola. */
const ROUNDS = 120;

interface Result {
  name: string;
  opsPerSec: number;
  usPerOp: number;
}

/** Runs `op` for ~`ms` after a warm-up; returns the best of `rounds` rounds. */
async function measure(
  name: string,
  op: (i: number) => unknown,
  { ms = 1200, rounds = 3, warmup = 300 } = {},
): Promise<Result> {
  let i = 0;
  const until = performance.now() + warmup;
  while (performance.now() < until) await op(i++);
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    const end = start + ms;
    while (performance.now() < end) {
      for (let k = 0; k < 50; k++) await op(i++);
      n += 50;
    }
    best = Math.max(best, (n * 1000) / (performance.now() - start));
  }
  return { name, opsPerSec: best, usPerOp: 1e6 / best };
}

/** Same as `measure` for synchronous operations (no await per call). */
function measureSync(
  name: string,
  op: (i: number) => unknown,
  { ms = 1200, rounds = 3, warmup = 300 } = {},
): Result {
  let i = 0;
  const until = performance.now() + warmup;
  while (performance.now() < until) op(i++);
  let best = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    const end = start + ms;
    while (performance.now() < end) {
      for (let k = 0; k < 50; k++) op(i++);
      n += 50;
    }
    best = Math.max(best, (n * 1000) / (performance.now() - start));
  }
  return { name, opsPerSec: best, usPerOp: 1e6 / best };
}

async function main(): Promise<void> {
  const signer = createNodeSigner(new Uint8Array(createHash('sha256').update('bench/owner').digest()));
  const tokenId = 'chbvcnurbkuw';
  const clock = new FixedClock(T0 + 5_000);
  const chain = new MemoryChainReader({
    contractId: 'passport.bench',
    chainTime: clock,
    passports: [
      {
        tokenId,
        ownerId: implicitAccountId(signer.publicKey),
        contractId: 'passport.bench',
        metadata: {},
        revoked: false,
      },
    ],
  });

  process.stdout.write(`building ${LINES} signed lines… `);
  const lines = Array.from({ length: LINES }, (_, i) =>
    buildHolaLine({
      senderTokenId: tokenId,
      timestamp: new Date(T0).toISOString(),
      nonceHex: i.toString(16).toUpperCase().padStart(32, '0'),
      serviceHost: SERVICE_HOST,
      signer,
    }),
  );
  console.log('done');
  const parsed = lines.slice(0, 64).map((l) => {
    const r = parseHola(l, { serviceHost: SERVICE_HOST });
    if (!r.ok) throw new Error(r.failure.message);
    return r.line;
  });
  const messages = parsed.map((p) => utf8(p.signedPrefix));
  const keyObject = createPublicKey({
    key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), signer.publicKey]),
    format: 'der',
    type: 'spki',
  });
  const nodeLane = createNodeVerifier();
  const nobleLane = createNobleVerifier();

  const results: Result[] = [];
  results.push(
    measureSync('parseHola (valid standard line)', (i) =>
      parseHola(lines[i % 64], { serviceHost: SERVICE_HOST }),
    ),
  );
  const jsonObjectText = JSON.stringify({ hola: 'HOLA/'.repeat(800) }); // 4 KiB: JSON.parse runs in full
  results.push(
    measureSync('parseHola (4 KiB JSON object text → payload_is_json_object)', () =>
      parseHola(jsonObjectText, { serviceHost: SERVICE_HOST }),
    ),
  );
  results.push(
    measureSync('holaChecksum', (i) =>
      holaChecksum(parsed[i % 64].signedPrefix, parsed[i % 64].signatureText),
    ),
  );
  const raw = measureSync('raw node:crypto verify (cached KeyObject)', (i) =>
    rawVerify(null, messages[i % 64], keyObject, parsed[i % 64].signature),
  );
  results.push(raw);
  results.push(
    measureSync('node lane verify (policy + LRU)', (i) =>
      nodeLane.verify(parsed[i % 64].signature, messages[i % 64], signer.publicKey),
    ),
  );
  results.push(
    measureSync(
      'raw noble ed25519.verify (zip215: false, cofactored)',
      (i) => ed25519.verify(parsed[i % 64].signature, messages[i % 64], signer.publicKey, { zip215: false }),
      { ms: 1000, rounds: 2 },
    ),
  );
  results.push(
    measureSync(
      'noble lane verify (policy)',
      (i) => nobleLane.verify(parsed[i % 64].signature, messages[i % 64], signer.publicKey),
      { ms: 1000, rounds: 2 },
    ),
  );

  // verifyHola: a fresh line per call (each nonce is recorded once), so it measures the verified path.
  const verifier = createHolaVerifier({
    chain,
    replay: new MemoryReplayStore({ maxEntries: LINES + 10 }),
    clock,
    verifier: nodeLane,
    serviceHost: SERVICE_HOST,
    // As the API runs it: every record charged to its sender (one sender here, so a bound above LINES).
    maxRecordsPerSender: LINES + 10,
  });
  let next = 0;
  let unverified = 0;
  const verifyOne = async () => {
    if (next >= LINES) throw new Error('ran out of prebuilt lines; raise LINES');
    const result = await verifier.verify({ hola: lines[next++] });
    if (!result.body.verified) unverified++;
  };
  // Alternate short slices (25 ms raw, 25 ms verifyHola) many times, so that load from other
  // processes falls on both sides alike; each side's rate is its total ops over its total time.
  // The median of the per-round ratios is printed too: a burst of load from elsewhere (this is a
  // shared VM) moves the totals but hardly the median, so the two disagreeing marks a disturbed run.
  const slice = { raw: { ops: 0, ms: 0 }, hola: { ops: 0, ms: 0 } };
  const roundRatios: number[] = [];
  for (let w = 0; w < 2000; w++) await verifyOne(); // warm-up
  let rawIndex = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let start = performance.now();
    let end = start + 25;
    let rawOps = 0;
    while (performance.now() < end) {
      for (let k = 0; k < 10; k++, rawIndex++)
        rawVerify(null, messages[rawIndex % 64], keyObject, parsed[rawIndex % 64].signature);
      rawOps += 10;
    }
    const rawMs = performance.now() - start;
    start = performance.now();
    end = start + 25;
    let holaOps = 0;
    while (performance.now() < end) {
      for (let k = 0; k < 10; k++) await verifyOne();
      holaOps += 10;
    }
    const holaMs = performance.now() - start;
    slice.raw.ops += rawOps;
    slice.raw.ms += rawMs;
    slice.hola.ops += holaOps;
    slice.hola.ms += holaMs;
    roundRatios.push(holaOps / holaMs / (rawOps / rawMs));
  }
  const holaRate = (slice.hola.ops * 1000) / slice.hola.ms;
  const rawRate = (slice.raw.ops * 1000) / slice.raw.ms;
  const medianRoundRatio = median(roundRatios);
  const holaResult: Result = {
    name: 'verifyHola (memory ports, node lane, fresh line each)',
    opsPerSec: holaRate,
    usPerOp: 1e6 / holaRate,
  };
  const ratio = holaRate / rawRate;
  results.push(holaResult);

  // The use case's own cost: the same path with the signature check stubbed out. Each pass over the
  // prebuilt lines gets a fresh replay store, so every call takes the verified path (not nonce_replay).
  const stubbedVerifier = () =>
    createHolaVerifier({
      chain,
      replay: new MemoryReplayStore({ maxEntries: LINES + 10 }),
      clock,
      verifier: { verify: () => true },
      serviceHost: SERVICE_HOST,
      maxRecordsPerSender: LINES + 10,
    });
  let stubbed = stubbedVerifier();
  let stubNext = 0;
  let stubUnverified = 0;
  const overhead = await measure('verifyHola without the signature check (overhead)', async () => {
    if (stubNext === LINES) {
      stubbed = stubbedVerifier();
      stubNext = 0;
    }
    if (!(await stubbed.verify({ hola: lines[stubNext++] })).body.verified) stubUnverified++;
  });
  if (stubUnverified > 0)
    throw new Error(`${stubUnverified} lines did not verify without the signature check`);
  results.push(overhead);
  if (unverified > 0) throw new Error(`${unverified} lines did not verify`);

  console.log(`\nNode ${process.version}, ${lines[0].length}-character lines\n`);
  for (const r of results)
    console.log(
      `${r.name.padEnd(56)} ${Math.round(r.opsPerSec).toString().padStart(10)} ops/s ${r.usPerOp.toFixed(2).padStart(10)} µs/op`,
    );
  console.log(
    `\nverifyHola ÷ raw node:crypto verify over interleaved 25 ms slices (raw ${Math.round(rawRate)} ops/s, verifyHola ${Math.round(holaRate)} ops/s)`,
  );
  console.log(`ratio = ${ratio.toFixed(3)} (target ≥ 0.9) ${ratio >= 0.9 ? 'OK' : 'BELOW TARGET'}`);
  console.log(`median of the ${ROUNDS} per-round ratios = ${medianRoundRatio.toFixed(3)}`);
  console.log(
    `cross-check from the overhead alone: raw µs / (raw µs + overhead µs) = ${(raw.usPerOp / (raw.usPerOp + overhead.usPerOp)).toFixed(3)}`,
  );
  console.log(`lines used by verifyHola: ${next}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
