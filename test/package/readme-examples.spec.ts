/**
 * The embedding examples of the READMEs, as an integrator copies them: the TypeScript block of
 * libs/passport-core/README.md that builds and verifies a HOLA line, and its copy in the root README,
 * are extracted, type-checked (strict, Node types) and run. A walkthrough found them using `seed32`,
 * `timestamp`, `nonceHex` and `chain` without defining any of them; each block now stands alone and
 * prints `true true` (parsed, verified). The core README's list of functions by signature (which calls
 * an API) is type-checked too.
 */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { bin, exampleProject, tsBlock } from './support/readme-blocks.js';

const run = promisify(execFile);
const embeddingBlock = (readme: string) => tsBlock(readme, 'buildHolaLine({');

let work: string;
beforeAll(() => {
  work = exampleProject(
    'passport-readme-examples-',
    ['core-readme.ts', 'root-readme.ts', 'core-functions.ts'],
    ['ES2023', 'DOM'],
  );
  writeFileSync(join(work, 'core-readme.ts'), embeddingBlock('libs/passport-core/README.md'));
  writeFileSync(join(work, 'root-readme.ts'), embeddingBlock('README.md'));
  // The core README's list of functions by signature: type-checked only (it calls an API).
  writeFileSync(join(work, 'core-functions.ts'), tsBlock('libs/passport-core/README.md', 'verifySubagent('));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('the blocks type-check as written (the embedding examples and the core README list of functions)', async () => {
  await expect(run(join(bin, 'tsc'), ['-p', 'tsconfig.json'], { cwd: work })).resolves.toMatchObject({
    stdout: '',
  });
}, 120_000);

it.each(['core-readme.ts', 'root-readme.ts'])(
  '%s runs and verifies its own line',
  async (file) => {
    const { stdout } = await run(join(bin, 'tsx'), ['--tsconfig', 'tsconfig.json', file], { cwd: work });
    expect(stdout).toBe('true true\n');
  },
  60_000,
);

it("the core README's ledger mapping: a ledger.json's passports and accounts, as it says, feed a MemoryChainReader that verifies", async () => {
  const { parseLedger, ledgerRecords } = await import('@passport/adapters/ledger');
  const { MemoryChainReader } = await import('@passport/core/memory');
  const { parseNearPublicKey, formatNearPublicKey } = await import('@passport/core/credentials');
  const {
    createNobleSigner,
    buildHolaLine,
    createHolaVerifier,
    MemoryReplayStore,
    systemClock,
    createNobleVerifier,
  } = await import('@passport/core');
  const signer = createNobleSigner(new Uint8Array(32).fill(7));
  const ledger = parseLedger(
    JSON.stringify({
      contractId: 'passport.local',
      passports: [{ token_id: 'bjbvcjzqbdsj', owner_id: 'ada.local', metadata: { not_after: '2999-01-01' } }],
      accounts: { 'ada.local': [formatNearPublicKey(signer.publicKey)] },
    }),
    'ledger.json',
  );
  const passports = ledgerRecords(ledger);
  expect(passports).toEqual([
    {
      tokenId: 'bjbvcjzqbdsj',
      ownerId: 'ada.local',
      contractId: 'passport.local',
      metadata: { not_after: '2999-01-01' },
      revoked: false,
    },
  ]);
  const accounts = Object.fromEntries(
    Object.entries(ledger.accounts).map(([account, keys]) => [
      account,
      keys.map((k) => parseNearPublicKey(k) as Uint8Array),
    ]),
  );
  const chain = new MemoryChainReader({ contractId: ledger.contractId, passports, accounts });
  const line = buildHolaLine({
    recipient: 'MUNDO',
    senderTokenId: 'bjbvcjzqbdsj',
    timestamp: new Date().toISOString(),
    nonceHex: '0123456789abcdef0123456789abcdef',
    serviceHost: 'localhost:3000',
    signer,
  });
  const verifier = createHolaVerifier({
    chain,
    replay: new MemoryReplayStore(),
    clock: systemClock,
    verifier: createNobleVerifier(),
    serviceHost: 'localhost:3000',
  });
  await expect(verifier.verify({ hola: line })).resolves.toMatchObject({ body: { verified: true } });
});
