/**
 * The development family (docs/protocol.md §8): first start creates private key files and a ledger whose
 * server passport is signed into the family (checked with the core's family-signature rule); a second
 * start reuses them; the chain module then loads the server identity from them. With NEAR, missing
 * keys stop the start with one line.
 */
import { execFileSync } from 'node:child_process';
import { lstat, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { Test } from '@nestjs/testing';
import {
  decodeFace,
  isTokenId,
  parseNearCredentials,
  utf8,
  verifyFamilySignature,
  type PassportMetadata,
  type SignatureVerifier,
} from '@passport/core';
import { ensureDevFamily, type LedgerDocument } from '@passport/adapters/ledger';
import { ChainModule } from '../../apps/api/src/platform/chain/chain.module.js';
import { ConfigModule } from '../../apps/api/src/platform/config/config.module.js';
import { loadConfig } from '../../apps/api/src/platform/config/app-config.js';
import {
  CHAIN_HEALTH_INDICATOR,
  CHAIN_CACHE,
  CHAIN_READER,
  SERVER_IDENTITY,
  TRUSTED_CONTRACTS,
} from '../../apps/api/src/platform/infrastructure/di-tokens.js';
import { type ServerIdentity } from '../../apps/api/src/platform/infrastructure/server-identity.js';
import { type HealthIndicator } from '../../apps/api/src/platform/infrastructure/health-indicator.js';

const verifier: SignatureVerifier = { verify: (sig, msg, key) => ed25519.verify(sig, msg, key) };

describe('development family bootstrap', () => {
  let dataDir: string;
  const config = () => loadConfig({ DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://localhost:4555' });

  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dev-family-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  // Found by a probe of operators' deployments: a DATA_DIR with spaces printed a mint line that broke
  // when pasted.
  it("prints next steps a shell reads with each path as one word (a DATA_DIR with spaces and a ')", async () => {
    const spaced = join(dataDir, "my data's dir");
    const lines: string[] = [];
    await ensureDevFamily(loadConfig({ DATA_DIR: spaced, PUBLIC_BASE_URL: 'http://localhost:4555' }), {
      log: (l) => lines.push(l),
    });
    const mint = lines.find((line) => line.includes(' mint '))!;
    const words = execFileSync('bash', ['-c', `printf '%s\\n' ${mint.trim()}`], { encoding: 'utf8' })
      .trimEnd()
      .split('\n');
    expect(words.slice(words.indexOf('--ledger') + 1, words.indexOf('--ledger') + 2)).toEqual([
      join(spaced, 'ledger.json'),
    ]);
    expect(words[words.indexOf('--family-key') + 1]).toBe(join(spaced, 'keys', 'family-root.json'));
  });

  it('creates private keys and a ledger whose server passport is signed into the family', async () => {
    const lines: string[] = [];
    const outcome = await ensureDevFamily(config(), { log: (l) => lines.push(l) });
    expect(outcome.created).toBe(true);

    const keysDir = join(dataDir, 'keys');
    expect((await stat(keysDir)).mode & 0o777).toBe(0o700);
    for (const name of ['family-root.json', 'server.json'])
      expect((await stat(join(keysDir, name))).mode & 0o777).toBe(0o600);

    const root = parseNearCredentials(await readFile(join(keysDir, 'family-root.json'), 'utf8'));
    const server = parseNearCredentials(await readFile(join(keysDir, 'server.json'), 'utf8'));
    const ledger = JSON.parse(await readFile(join(dataDir, 'ledger.json'), 'utf8')) as LedgerDocument;

    expect(ledger.contractId).toBe('passport.local');
    const rootPassport = ledger.passports.find((p) => p.token_id === 'bc=local;sc=passport.local;id=devroot');
    expect(rootPassport?.owner_id).toBe(root.accountId);
    const serverPassport = ledger.passports.find((p) => p.owner_id === server.accountId);
    expect(serverPassport).toBeDefined();
    const tokenId = serverPassport!.token_id;
    expect(isTokenId(tokenId)).toBe(true);
    expect(decodeFace(tokenId)?.checksumValid).toBe(true);
    const metadata = serverPassport!.metadata as PassportMetadata;
    expect(metadata.token_id).toBeUndefined();
    expect(metadata).toMatchObject({
      serviceprovider_id: 'bc=local;sc=passport.local;id=devroot',
      subjectuniqueidentifier_url: 'http://localhost:4555',
    });
    expect(verifyFamilySignature(metadata, tokenId, [root.publicKey], verifier)).toBe(true);
    // negative control: the server's own key did not sign it, and a changed field breaks it
    expect(verifyFamilySignature(metadata, tokenId, [server.publicKey], verifier)).toBe(false);
    expect(
      verifyFamilySignature(
        { ...metadata, subjectuniqueidentifier_url: 'http://evil' },
        tokenId,
        [root.publicKey],
        verifier,
      ),
    ).toBe(false);

    expect(lines.join('\n')).toContain('npm run -s passport -- mint');
    expect(lines.join('\n')).toContain('npm run -s passport -- login');
    expect(lines.join('\n')).not.toContain(Buffer.from(root.secretSeed).toString('hex'));
  });

  it('reuses the family on a second start', async () => {
    const first = await ensureDevFamily(config());
    const before = await readFile(join(dataDir, 'keys', 'server.json'), 'utf8');
    const ledgerBefore = await readFile(join(dataDir, 'ledger.json'), 'utf8');
    const second = await ensureDevFamily(config());
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(await readFile(join(dataDir, 'keys', 'server.json'), 'utf8')).toBe(before);
    expect(await readFile(join(dataDir, 'ledger.json'), 'utf8')).toBe(ledgerBefore);
  });

  it('refuses to overwrite a half-present family with one clear line', async () => {
    await writeFile(join(dataDir, 'ledger.json'), '{"contractId":"passport.local","passports":[]}');
    const error = (await ensureDevFamily(config()).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/SERVER_CREDENTIALS_FILE .* is missing but .*ledger\.json exists/);
    expect(error.message).not.toContain('\n');
  });

  // Found by a README walkthrough: LEDGER_FILE naming a file that is no ledger was answered with the
  // advice to remove that file.
  it.each([
    ['not JSON', 'not json'],
    ['JSON but no ledger', '{}'],
  ])(
    'a LEDGER_FILE that is no ledger (%s) is said to be one, with the reason, and nothing is written',
    async (_what, text) => {
      await writeFile(join(dataDir, 'ledger.json'), text);
      const error = (await ensureDevFamily(config()).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(
        /^the ledger \S*ledger\.json \(LEDGER_FILE, DATA_DIR\/ledger\.json by default\) is not a ledger \(line 1: /,
      );
      expect(error.message.split(dataDir)).toHaveLength(2); // the file named once
      expect(error.message).not.toContain('\n');
      expect(await readFile(join(dataDir, 'ledger.json'), 'utf8')).toBe(text);
      await expect(readFile(join(dataDir, 'keys', 'server.json'), 'utf8')).rejects.toThrow(/ENOENT/);
    },
  );

  // Found by a probe: two processes starting on one empty DATA_DIR both created a family (15 of 15).
  it('two starts at once create one family: the other finds it', async () => {
    const outcomes = await Promise.all([
      ensureDevFamily(config()),
      ensureDevFamily(config()),
      ensureDevFamily(config()),
    ]);
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    const created = outcomes.find((o) => o.created)!;
    const ledger = JSON.parse(await readFile(join(dataDir, 'ledger.json'), 'utf8')) as LedgerDocument;
    const server = parseNearCredentials(await readFile(join(dataDir, 'keys', 'server.json'), 'utf8'));
    expect(ledger.passports.find((p) => p.token_id === created.serverTokenId)?.owner_id).toBe(
      server.accountId,
    );
  });

  // Found by a probe (with `mint --ledger <link>`): a write replaced a symbolic link to the ledger.
  it('a LEDGER_FILE that is a symbolic link to nothing is refused with one line, not replaced', async () => {
    const target = join(dataDir, 'real-ledger.json');
    const link = join(dataDir, 'ledger.json');
    await symlink(target, link);
    const error = (await ensureDevFamily(config()).catch((e: unknown) => e)) as Error;
    expect(error.message).toBe(`LEDGER_FILE ${link} is a symbolic link to ${target}, which does not exist`);
    await expect(stat(join(dataDir, 'keys', 'server.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a first start that stopped before the ledger: one line saying what to remove', async () => {
    await ensureDevFamily(config());
    await rm(join(dataDir, 'ledger.json'));
    const error = (await ensureDevFamily(config()).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('remove');
    expect(error.message).toContain(join(dataDir, 'keys', 'server.json'));
    expect(error.message).not.toContain('\n');
  });

  it('the chain module loads the server identity from the created family, twice the same', async () => {
    const boot = async (): Promise<{
      identity: ServerIdentity;
      health: HealthIndicator;
      close: () => Promise<void>;
    }> => {
      const moduleRef = await Test.createTestingModule({
        imports: [ConfigModule.forRoot(config()), ChainModule],
      }).compile();
      await moduleRef.init();
      return {
        identity: moduleRef.get(SERVER_IDENTITY),
        health: moduleRef.get(CHAIN_HEALTH_INDICATOR),
        close: () => moduleRef.close(),
      };
    };
    const first = await boot();
    try {
      expect(isTokenId(first.identity.tokenId)).toBe(true);
      expect(first.identity.serviceProviderId).toBe('bc=local;sc=passport.local;id=devroot');
      expect(first.identity.passport.metadata.subjectuniqueidentifier_url).toBe('http://localhost:4555');
      const message = utf8('hello');
      expect(
        ed25519.verify(first.identity.signer.sign(message), message, first.identity.signer.publicKey),
      ).toBe(true);
      await expect(first.health.check()).resolves.toMatchObject({ ok: true, detail: { kind: 'ledger' } });
    } finally {
      await first.close();
    }
    const second = await boot();
    try {
      expect(second.identity.tokenId).toBe(first.identity.tokenId);
      expect(second.identity.ownerId).toBe(first.identity.ownerId);
    } finally {
      await second.close();
    }
  });

  it('provides a caching CHAIN_READER with stats()', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config()), ChainModule],
    }).compile();
    await moduleRef.init();
    try {
      const chain = moduleRef.get(CHAIN_READER);
      expect(typeof chain.stats).toBe('function');
      // One object under both tokens: the counters the metrics read are the reader's own.
      expect(moduleRef.get(CHAIN_CACHE)).toBe(chain);
      expect(chain.contractId).toBe('passport.local');
      // TRUSTED_CONTRACTS unset: the ledger's own contract
      expect(moduleRef.get(TRUSTED_CONTRACTS)).toEqual(['passport.local']);
    } finally {
      await moduleRef.close();
    }
  });

  // Found by a probe: CHAIN=ledger with NEAR_CONTRACT_ID (or TRUSTED_CONTRACTS) not naming the ledger's
  // contract started healthy, and every login was 401 SMART_CONTRACT_NOT_TRUSTED.
  it.each([
    [
      { NEAR_CONTRACT_ID: 'other.near' },
      /^NEAR_CONTRACT_ID other\.near .*passport\.local.*SMART_CONTRACT_NOT_TRUSTED/,
    ],
    [
      { TRUSTED_CONTRACTS: 'a.near,b.near' },
      /^TRUSTED_CONTRACTS \(a\.near, b\.near\) .*passport\.local.*SMART_CONTRACT_NOT_TRUSTED/,
    ],
  ])(
    'a trusted set without the server passport contract stops the start with one line: %j',
    async (env, message) => {
      await ensureDevFamily(config()); // the ledger a first start made (passport.local)
      const error = (await Test.createTestingModule({
        imports: [ConfigModule.forRoot(loadConfig({ DATA_DIR: dataDir, ...env })), ChainModule],
      })
        .compile()
        .catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(message);
      expect(error.message).not.toContain('\n');
      const fine = await Test.createTestingModule({
        imports: [
          ConfigModule.forRoot(loadConfig({ DATA_DIR: dataDir, TRUSTED_CONTRACTS: 'a.near,passport.local' })),
          ChainModule,
        ],
      }).compile();
      expect(fine.get(TRUSTED_CONTRACTS)).toEqual(['a.near', 'passport.local']);
      await fine.close();
    },
  );

  it('with CHAIN=near and no keys, the start stops with one line', async () => {
    const nearConfig = loadConfig({
      DATA_DIR: dataDir,
      CHAIN: 'near',
      NEAR_RPC_URL: 'http://127.0.0.1:9',
      NEAR_CONTRACT_ID: 'passport.near',
    });
    const error = (await Test.createTestingModule({
      imports: [ConfigModule.forRoot(nearConfig), ChainModule],
    })
      .compile()
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^SERVER_CREDENTIALS_FILE .*server\.json cannot be read \(ENOENT\)$/);
  });
});
